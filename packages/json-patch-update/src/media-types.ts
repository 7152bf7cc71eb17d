/**
 * @module The patch media types this package reads, and the `Content-Type` parsing they need.
 */
import type { IncomingMessage } from 'node:http';

/** RFC 6902 §6. */
export const JSON_PATCH_MEDIA_TYPE = 'application/json-patch+json';
/** RFC 7396 §4. */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';
export const JSON_MEDIA_TYPE = 'application/json';

export interface ContentType {
  /** Lower-cased `type/subtype`. */
  readonly type: string;
  /** Lower-cased `charset` parameter, if any. */
  readonly charset: string | undefined;
}

/** The request's media type, or `undefined` when `Content-Type` is absent or not `type/subtype`. */
export function contentTypeOf(req: IncomingMessage): ContentType | undefined {
  const header = req.headers['content-type'];
  if (typeof header !== 'string') return undefined;
  const [essence = '', ...params] = header.split(';');
  const type = essence.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) return undefined;
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq !== -1 && param.slice(0, eq).trim().toLowerCase() === 'charset') {
      charset = param
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, '')
        .toLowerCase();
    }
  }
  return { type, charset };
}
