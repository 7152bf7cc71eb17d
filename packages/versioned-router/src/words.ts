/**
 * @module Word lists and the plural heuristic behind the route checker. A checker of English by
 * suffix is a heuristic: the lists below cover the words APIs use most, and the checker's options
 * add the rest.
 */

/**
 * Verbs that do not belong in a resource path. The spec names create, get, delete, update and
 * `batch_xxx` as path tails seen in the field; the others are the verbs API linters flag most.
 */
export const DEFAULT_VERBS: readonly string[] = Object.freeze([
  'activate',
  'add',
  'approve',
  'archive',
  'assign',
  'authorize',
  'batch',
  'calculate',
  'cancel',
  'capture',
  'change',
  'check',
  'compute',
  'copy',
  'create',
  'deactivate',
  'delete',
  'disable',
  'do',
  'download',
  'edit',
  'enable',
  'evaluate',
  'execute',
  'export',
  'fetch',
  'find',
  'generate',
  'get',
  'import',
  'list',
  'login',
  'logout',
  'make',
  'modify',
  'move',
  'patch',
  'post',
  'publish',
  'put',
  'query',
  'refresh',
  'refund',
  'register',
  'reject',
  'remove',
  'reset',
  'restore',
  'retrieve',
  'run',
  'save',
  'search',
  'send',
  'set',
  'start',
  'stop',
  'submit',
  'subscribe',
  'suspend',
  'sync',
  'unsubscribe',
  'update',
  'upload',
  'validate',
  'verify',
]);

/** Plural nouns without a plain `s` ending, and nouns with no singular that APIs use as names. */
const PLURAL_WORDS = new Set([
  'children',
  'criteria',
  'data',
  'feet',
  'geese',
  'history',
  'indices',
  'media',
  'men',
  'metadata',
  'mice',
  'news',
  'people',
  'series',
  'species',
  'teeth',
  'women',
]);

/** Singular nouns that end in `s`. */
const SINGULAR_WORDS = new Set([
  'access',
  'address',
  'alias',
  'analysis',
  'atlas',
  'axis',
  'basis',
  'bonus',
  'bus',
  'business',
  'campus',
  'canvas',
  'census',
  'class',
  'corpus',
  'crisis',
  'diagnosis',
  'gas',
  'lens',
  'process',
  'progress',
  'radius',
  'status',
  'success',
  'thesis',
  'virus',
]);

/** The words of a path segment: split at `-`, `_`, `.`, and lower-to-upper case changes. */
export function splitWords(segment: string): string[] {
  return segment
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[-_.\s]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

/** Whether a word reads as a plural noun (or a noun used as a collection name without one). */
export function isPluralWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (PLURAL_WORDS.has(lower)) return true;
  if (SINGULAR_WORDS.has(lower)) return false;
  return lower.length > 1 && lower.endsWith('s') && !lower.endsWith('ss');
}
