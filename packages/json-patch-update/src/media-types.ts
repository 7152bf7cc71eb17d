/**
 * @module The patch media types this package reads, and the request's `Content-Type`, parsed
 * with `content-type` (the module body-parser uses, RFC 9110 §8.3).
 */
import type { IncomingMessage } from 'node:http';
import contentType from 'content-type';

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

/** The request's media type, or `undefined` when `Content-Type` is absent or malformed. */
export function contentTypeOf(req: IncomingMessage): ContentType | undefined {
  if (req.headers['content-type'] === undefined) return undefined;
  try {
    const parsed = contentType.parse(req);
    return { type: parsed.type, charset: parsed.parameters.charset?.toLowerCase() };
  } catch {
    return undefined;
  }
}
