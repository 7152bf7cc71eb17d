/**
 * @module The request fingerprint: what makes a repeat "the same request" (draft §2.4). Method,
 * path with query, and body; JSON bodies are compared by content, not by key order.
 */
import { createHash, hash } from 'node:crypto';

export interface FingerprintRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  /** Express keeps the full URL here when a router has stripped a mount path from `url`. */
  readonly originalUrl?: string | undefined;
  /** The parsed body (mount the middleware after the body parser). */
  readonly body?: unknown;
}

/**
 * The URL without the id's own query parameters. The query is always re-serialised, with or
 * without an id in it, so that moving the id from the header to the query (or back) on a retry
 * does not change how the other parameters are spelled (`%20` and `+` alike).
 */
function withoutParams(url: string, names: readonly string[]): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const lower = new Set(names.map((name) => name.toLowerCase()));
  const params = new URLSearchParams(url.slice(queryStart + 1));
  const kept = [...params].filter(([key]) => !lower.has(key.toLowerCase()));
  const query = new URLSearchParams(kept).toString();
  return url.slice(0, queryStart) + (query === '' ? '' : `?${query}`);
}

type Frame = readonly ['value', unknown] | readonly ['text', string];

/**
 * A canonical form of `value` (object keys sorted): text, with the bytes of any binary view
 * (`Buffer`, typed array) as parts of their own. Iterative, so a deeply nested body cannot
 * overflow the stack.
 */
function canonicalParts(value: unknown): (string | Uint8Array)[] {
  // Gathered into as few parts as possible (one, unless the value holds binary views): a hash
  // of the concatenation is the hash of the parts in order, so the digest is the same.
  const parts: (string | Uint8Array)[] = [];
  let text = '';
  const stack: Frame[] = [['value', value]];
  // Bounded by the size of the value: each frame is popped once and pushes only its children.
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame[0] === 'text') {
      text += frame[1];
      continue;
    }
    const current = frame[1];
    if (Array.isArray(current)) {
      stack.push(['text', ']']);
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push(['value', current[index]]);
        if (index > 0) stack.push(['text', ',']);
      }
      text += '[';
    } else if (current !== null && typeof current === 'object' && !ArrayBuffer.isView(current)) {
      const record = current as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      stack.push(['text', '}']);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!;
        stack.push(['value', record[key]]);
        stack.push(['text', `${JSON.stringify(key)}:`]);
        if (index > 0) stack.push(['text', ',']);
      }
      text += '{';
    } else if (ArrayBuffer.isView(current)) {
      parts.push(`${text}b${current.byteLength}:`);
      text = '';
      parts.push(new Uint8Array(current.buffer, current.byteOffset, current.byteLength));
    } else if (current === undefined) {
      text += 'u';
    } else if (typeof current === 'bigint' || typeof current === 'symbol') {
      text += String(current);
    } else if (typeof current === 'function') {
      text += 'f';
    } else {
      text += JSON.stringify(current);
    }
  }
  parts.push(text);
  return parts;
}

/** Nesting depth up to which `canonicalText` recurses; deeper values take the iterative walk. */
const MAX_RECURSION_DEPTH = 64;

/**
 * The same text as `canonicalParts` gives for a value without binary views, built by recursion
 * (no frame arrays: about twice as fast for a request body), or `undefined` for a value that
 * holds a binary view or is nested deeper than `MAX_RECURSION_DEPTH`.
 */
function canonicalText(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') {
    if (value === undefined) return 'u';
    if (typeof value === 'bigint' || typeof value === 'symbol') return String(value);
    if (typeof value === 'function') return 'f';
    return JSON.stringify(value);
  }
  if (depth >= MAX_RECURSION_DEPTH || ArrayBuffer.isView(value)) return undefined;
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const part = canonicalText(value[index], depth + 1);
      if (part === undefined) return undefined;
      text += index === 0 ? part : `,${part}`;
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const part = canonicalText(record[key], depth + 1);
    if (part === undefined) return undefined;
    text += `${index === 0 ? '' : ','}${JSON.stringify(key)}:${part}`;
  }
  return `${text}}`;
}

/**
 * The default fingerprint: SHA-256 over method, URL (without the id's own query parameters)
 * and body, hex-encoded.
 * @param idNames the header names of the id, left out of the query when compared
 */
export function requestFingerprint(req: FingerprintRequest, idNames: readonly string[] = []) {
  const head = `${req.method ?? ''}\n${withoutParams(req.originalUrl ?? req.url ?? '', idNames)}\n`;
  // One native call for the common body (no binary views), instead of a Hash object.
  const text = canonicalText(req.body, 0);
  if (text !== undefined) return hash('sha256', head + text);
  const parts = canonicalParts(req.body);
  if (parts.length === 1) return hash('sha256', head + (parts[0] as string));
  const digest = createHash('sha256').update(head);
  for (const part of parts) digest.update(part);
  return digest.digest('hex');
}
