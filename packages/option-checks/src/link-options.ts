/**
 * @module The `help` option several factories share: the API's documentation, sent as
 * `Link: <url>; rel="help"` (RFC 8288; `help` is an IANA link relation).
 */
import { invalidOption } from './value-checks.js';

/**
 * The `Link` field value for `help` (one URL or a list of them, absolute or relative to the
 * request), or `undefined` when it is absent or `false`. Each URL must be a URI-reference that can
 * stand between `<` and `>` (RFC 8288 §3): visible ASCII without the brackets and the quote, so
 * a non-ASCII URL must be given percent-encoded.
 */
export function helpLinkOption(factory: string, help: unknown): string | undefined {
  if (help === undefined || help === false) return undefined;
  if (Array.isArray(help)) {
    if (help.length === 0) invalidOption(factory, 'help', 'at least one URL, or false', help);
    return help.map((url: unknown) => helpTarget(factory, url)).join(', ');
  }
  return helpTarget(factory, help);
}

function helpTarget(factory: string, url: unknown): string {
  if (typeof url !== 'string' || !/^[!#-;=?-~]+$/.test(url) || !URL.canParse(url, BASE)) {
    invalidOption(factory, 'help', 'a URL such as "https://api.example.com/docs", or false', url);
  }
  return `<${url}>; rel="help"`;
}

/** Any base: it only lets a relative reference be checked as one. */
const BASE = 'http://base.invalid';
