/**
 * @module The negotiation of one request: the format (`Accept`, or the `accept` query
 * parameter), the charset, the language and the content coding; and the shortcut for the
 * request most API clients send, which asks for nothing but JSON.
 */
import type { IncomingMessage } from 'node:http';
import Negotiator from 'negotiator';
import { type Charset, charsetOf, LATIN1_ALIASES } from './charsets.js';
import { negotiateEncoding } from './compression-choice.js';
import {
  ACCEPT_QUERY_PARAMETER,
  chooseMediaType,
  MEDIA_TYPES,
  mediaRangeOfQuery,
  notAcceptable,
} from './formats.js';
import { boundedHeader } from './header-limits.js';
import { JSONP_CALLBACK_PARAMETER, parseCallback } from './jsonp.js';
import { lookupLanguage } from './languages.js';
import type { Negotiated } from './negotiated.js';
import type { ResolvedOptions } from './options.js';

/** Charsets offered to Accept-Charset, UTF-8 first: the server's preference among equals. */
const OFFERED_CHARSETS = ['utf-8', ...LATIN1_ALIASES];

/** What the `accept` query parameter looks like in a URL, as queryValues() looks for it. */
const ACCEPT_IN_QUERY = `${ACCEPT_QUERY_PARAMETER}=`;

/** The target of the request as the client sent it (Express's `originalUrl` inside a router). */
function requestUrl(req: IncomingMessage): string {
  return (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
}

function queryValues(req: IncomingMessage, name: string): string[] | undefined {
  const url = requestUrl(req);
  const start = url.indexOf('?');
  if (start === -1 || !url.includes(`${name}=`, start)) return undefined;
  const values = new URLSearchParams(url.slice(start + 1)).getAll(name);
  return values.length === 0 ? undefined : values;
}

function chooseCharset(header: string | undefined): Charset {
  if (header === undefined) return 'utf-8';
  // RFC 9110 §12.5.2: with no acceptable charset the server may disregard the header; we answer
  // UTF-8, which every client can decode, rather than 406.
  const [best] = new Negotiator({ headers: { 'accept-charset': header } }).charsets(
    OFFERED_CHARSETS,
  );
  return (best === undefined ? undefined : charsetOf(best)) ?? 'utf-8';
}

/**
 * The media ranges a request accepts, read as the middleware reads them: the `accept` query
 * parameter when given (a short form such as `xml`, or a media range), else the `Accept` header
 * within the bounds. For routes that choose among media types of their own with
 * `chooseMediaType` (mounted before the middleware, like an OpenAPI document).
 * @throws ApiError 400 `INVALID_REQUEST` naming `accept` or `Accept`
 */
export function acceptOfRequest(req: IncomingMessage): string | undefined {
  const queried = queryValues(req, ACCEPT_QUERY_PARAMETER);
  // The query parameter wins: it is the client's explicit choice in the URL (a link, a
  // browser), where the header is often a user agent's default.
  return queried === undefined
    ? boundedHeader(req.headers.accept, 'Accept')
    : mediaRangeOfQuery(queried);
}

export interface RequestNegotiation {
  /**
   * The representation for a request, by RFC 9110 §12.5.
   * @throws ApiError 406 when no offered media type is acceptable; 400 for an `accept` query
   *   parameter that names none, or an `Accept*` header beyond the bounds
   */
  readonly negotiate: (req: IncomingMessage) => Negotiated;
  /**
   * The shortcut: for a request with no `accept` query parameter, `Accept` absent, `*\/*` or
   * `application/json`, and none of the other `Accept*` headers this middleware reads, the
   * answer `negotiate` gives (UTF-8 JSON, the default language, no coding), one frozen object
   * shared by all of them; `undefined` for any other request, which goes to `negotiate`.
   */
  readonly negotiatePlainJson: (req: IncomingMessage) => Negotiated | undefined;
}

/** The two negotiations for one middleware's options. */
export function requestNegotiation(resolved: ResolvedOptions): RequestNegotiation {
  const offered = MEDIA_TYPES.filter(
    (choice) =>
      choice.format === 'json' ||
      (choice.format === 'xml' && resolved.xml) ||
      (choice.format === 'jsonp' && resolved.jsonp),
  );
  // JSONP is a script fetched by a <script> element: GET and HEAD only.
  const offeredForWrites = offered.filter((choice) => choice.format !== 'jsonp');
  const [defaultLanguage] = resolved.languages ?? [];
  const readsLanguage = resolved.languages !== undefined && defaultLanguage !== undefined;
  const readsEncoding = resolved.compression !== false;

  function negotiate(req: IncomingMessage): Negotiated {
    const method = (req.method ?? 'GET').toUpperCase();
    const available = method === 'GET' || method === 'HEAD' ? offered : offeredForWrites;
    const accept = acceptOfRequest(req);
    let chosen = chooseMediaType(accept, available);
    if (chosen === undefined) throw notAcceptable(available);
    let callback: string | undefined;
    if (chosen.format === 'jsonp') {
      const callbacks = queryValues(req, JSONP_CALLBACK_PARAMETER);
      // A script is nothing without its callback. Without `?callback=`, a client that accepts
      // another format gets it (jQuery's script Accept ends in `*/*;q=0.01`); only one that
      // accepts nothing else hears that `callback` is missing (400 naming it).
      const instead =
        callbacks === undefined ? chooseMediaType(accept, offeredForWrites) : undefined;
      if (instead === undefined) callback = parseCallback(callbacks ?? []);
      else chosen = instead;
    }
    const charset = chooseCharset(boundedHeader(req.headers['accept-charset'], 'Accept-Charset'));
    const language = readsLanguage
      ? lookupLanguage(
          boundedHeader(req.headers['accept-language'], 'Accept-Language'),
          resolved.languages ?? [],
          defaultLanguage ?? '',
        )
      : undefined;
    const encoding = readsEncoding
      ? negotiateEncoding(boundedHeader(req.headers['accept-encoding'], 'Accept-Encoding'))
      : undefined;
    return {
      format: chosen.format,
      mediaType: chosen.mediaType,
      charset,
      language,
      encoding,
      callback,
    };
  }

  // Both offered lists start with JSON (formats.ts's MEDIA_TYPES order, JSON always served), so
  // without an Accept to weigh, the method does not change the choice.
  const [first] = offered;
  const [firstForWrites] = offeredForWrites;
  const plain: Negotiated | undefined =
    first?.format === 'json' && firstForWrites === first
      ? Object.freeze({
          format: first.format,
          mediaType: first.mediaType,
          charset: 'utf-8',
          language: readsLanguage ? defaultLanguage : undefined,
          encoding: undefined,
          callback: undefined,
        })
      : undefined;

  function negotiatePlainJson(req: IncomingMessage): Negotiated | undefined {
    if (plain === undefined) return undefined;
    const headers = req.headers;
    const accept = headers.accept;
    // The values chooseMediaType() answers with the first offered type without parsing.
    if (accept !== undefined && accept !== '*/*' && accept !== 'application/json') return undefined;
    // Without the header: UTF-8 (chooseCharset), the default language (lookupLanguage), identity.
    if (headers['accept-charset'] !== undefined) return undefined;
    if (readsLanguage && headers['accept-language'] !== undefined) return undefined;
    if (readsEncoding && headers['accept-encoding'] !== undefined) return undefined;
    // Any `accept=` after the `?` may be the query parameter: the full negotiation reads it.
    const url = requestUrl(req);
    const query = url.indexOf('?');
    if (query !== -1 && url.includes(ACCEPT_IN_QUERY, query)) return undefined;
    return plain;
  }

  return { negotiate, negotiatePlainJson };
}
