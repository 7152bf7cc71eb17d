/**
 * @module The request fingerprint: what makes a repeat "the same request" (draft §2.4). Method,
 * path with query, and body; JSON bodies are compared by content, not by key order.
 */
import { createHash, type Hash } from 'node:crypto';

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
 * Feeds a canonical form of `value` (object keys sorted) to the hash. Iterative, so a deeply
 * nested body cannot overflow the stack.
 */
function hashCanonical(hash: Hash, value: unknown): void {
  // The text is gathered and hashed in one update (one native call instead of one per token:
  // a hash of the concatenation is the hash of the parts in order, so the digest is the same).
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
      hash.update(`${text}b${current.byteLength}:`);
      text = '';
      hash.update(new Uint8Array(current.buffer, current.byteOffset, current.byteLength));
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
  hash.update(text);
}

/**
 * The default fingerprint: SHA-256 over method, URL (without the id's own query parameters)
 * and body, hex-encoded.
 * @param idNames the header names of the id, left out of the query when compared
 */
export function requestFingerprint(req: FingerprintRequest, idNames: readonly string[] = []) {
  const hash = createHash('sha256');
  hash.update(`${req.method ?? ''}\n${withoutParams(req.originalUrl ?? req.url ?? '', idNames)}\n`);
  hashCanonical(hash, req.body);
  return hash.digest('hex');
}
