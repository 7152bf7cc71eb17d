/**
 * @module The middleware: negotiates the format, charset, language and coding of every answer,
 * writes `res.json` values and error envelopes in the chosen format, and reads JSON request
 * bodies sent in ISO-8859-1 or compressed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { beforeHeaders } from '@resourceful/application-hooks';
import {
  hasConditionalRequests,
  setRepresentationVariant,
} from '@resourceful/conditional-requests';
import compression from 'compression';
import vary from 'vary';
import { charsetLabel, jsonToLatin1 } from './charsets.js';
import {
  codeHeadAsTheGet,
  isCompressible,
  responseEncoding,
  variesByCoding,
} from './compression-choice.js';
import { jsonpBody } from './jsonp.js';
import { CONTENT_NEGOTIATION_MARK } from './middleware-order.js';
import { getLanguage, languageUsed, type Negotiated, setNegotiated } from './negotiated.js';
import { type ContentNegotiationOptions, resolveOptions } from './options.js';
import { planBody, readPlannedBody } from './request-body.js';
import { requestNegotiation } from './request-negotiation.js';
import { toXml } from './xml.js';

type Next = (err?: unknown) => void;
type Chunk = string | Uint8Array;

/**
 * `req.language`, one descriptor for every request: V8 shares an object shape between objects
 * given the same accessor functions, where a getter made per request gives each request its own
 * shape (and every function that reads `req` afterwards a megamorphic property lookup).
 */
const LANGUAGE_PROPERTY: PropertyDescriptor = Object.freeze({
  configurable: true,
  enumerable: true,
  get(this: IncomingMessage) {
    return getLanguage(this);
  },
});

/** The format's name inside a representation's tag (conditional-requests' variants). */
const VARIANT_OF_MEDIA_TYPE: Readonly<Record<string, string>> = {
  'application/xml': 'xml',
  'text/xml': 'text-xml',
  'text/javascript': 'jsonp',
};

/** What the header hook of one answer needs. */
interface Answer {
  readonly req: IncomingMessage;
  readonly negotiated: Negotiated;
  /** A HEAD request: its headers are those the GET would get. */
  readonly head: boolean;
}

/**
 * The `Vary` names of an answer, by [language read][compressible], and the value vary() writes
 * for them on an answer without `Vary` yet.
 */
const VARY_FIELDS: readonly (readonly string[][])[] = [
  [
    ['Accept', 'Accept-Charset'],
    ['Accept', 'Accept-Charset', 'Accept-Encoding'],
  ],
  [
    ['Accept', 'Accept-Charset', 'Accept-Language'],
    ['Accept', 'Accept-Charset', 'Accept-Language', 'Accept-Encoding'],
  ],
];
const VARY_VALUES = VARY_FIELDS.map((byCoding) =>
  byCoding.map((fields) => vary.append('', fields)),
);

function orderError(what: string): Error {
  const error = new Error(
    `contentNegotiation() must be mounted before ${what}: it decodes request bodies before they are parsed, and writes the format that conditionalRequests() tags. See the "Where it goes" section of its README.`,
  );
  (error as Error & { code: string }).code = 'ERR_CONTENT_NEGOTIATION_ORDER';
  return error;
}

function mediaTypeOf(res: ServerResponse): string | undefined {
  const header = res.getHeader('Content-Type');
  if (typeof header !== 'string') return undefined;
  const end = header.indexOf(';');
  return (end === -1 ? header : header.slice(0, end)).trim().toLowerCase();
}

/**
 * Negotiates every answer: `app.use(contentNegotiation(options))` before the body parsers and
 * `conditionalRequests()`. Routes keep calling `res.json(value)`.
 */
export function contentNegotiation(options: ContentNegotiationOptions = {}) {
  const resolved = resolveOptions(options);
  const compress = resolved.compression;
  const threshold = compress === false ? 0 : compress.threshold;
  const { negotiate, negotiatePlainJson } = requestNegotiation(resolved);

  /** The body of a value in the negotiated representation, and its `Content-Type`. */
  function render(negotiated: Negotiated, json: string): { body: Buffer; type: string } {
    const latin1 = negotiated.charset === 'iso-8859-1';
    const charset = `charset=${charsetLabel(negotiated.charset)}`;
    const encode = (text: string) => Buffer.from(text, latin1 ? 'latin1' : 'utf8');
    if (negotiated.format === 'xml') {
      return {
        body: encode(toXml(JSON.parse(json), { latin1 })),
        type: `${negotiated.mediaType}; ${charset}`,
      };
    }
    const text = latin1 ? jsonToLatin1(json) : json;
    if (negotiated.format === 'jsonp' && negotiated.callback !== undefined) {
      return {
        body: encode(jsonpBody(negotiated.callback, text)),
        type: `text/javascript; ${charset}`,
      };
    }
    return { body: encode(text), type: `application/json; ${charset}` };
  }

  /**
   * A JSON body handed to `res.send` or `res.end` as text or bytes (an envelope, a replay, a
   * cached answer), in the negotiated representation with its `Content-Type` set; `undefined`
   * when the answer is not JSON after all, or its headers are gone.
   */
  function renderedChunk(
    res: ServerResponse,
    negotiated: Negotiated,
    chunk: unknown,
  ): Buffer | undefined {
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) return undefined;
    if (res.headersSent || mediaTypeOf(res) !== 'application/json') return undefined;
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Chunk).toString('utf8');
    try {
      JSON.parse(text);
    } catch {
      return undefined;
    }
    const { body, type } = render(negotiated, text);
    res.setHeader('Content-Type', type);
    if (negotiated.format === 'jsonp') res.setHeader('X-Content-Type-Options', 'nosniff');
    return body;
  }

  /** Each response's coding decision, read by compression's filter. */
  const decisions = new WeakMap<
    ServerResponse,
    (bodyLength: number | undefined) => string | undefined
  >();
  const compressor =
    compress === false
      ? undefined
      : compression({
          threshold: compress.threshold,
          level: compress.level,
          filter: (_req, res) =>
            decisions.get(res as unknown as ServerResponse)?.(undefined) !== undefined,
        });

  /**
   * The headers of every answer, set just before they are written: `Vary` (merged, never
   * overwritten), `Content-Language` when the language was read, and a HEAD's coding.
   */
  function negotiatedHeaders(res: ServerResponse, answer: Answer): void {
    const { req, negotiated } = answer;
    const localised = languageUsed(req);
    // Error messages are for developers and stay unlocalized (spec, "Error handling").
    if (localised && negotiated.language !== undefined && res.statusCode < 400) {
      res.setHeader('Content-Language', negotiated.language);
    }
    const compressible = compress !== false && isCompressible(req, res);
    const coding = compress !== false && variesByCoding(res, compressible);
    if (res.hasHeader('vary')) {
      vary(res, VARY_FIELDS[Number(localised)]![Number(coding)]!);
    } else {
      // What vary() writes when there is no Vary yet, without parsing it again.
      res.setHeader('Vary', VARY_VALUES[Number(localised)]![Number(coding)]!);
    }
    if (compressible && answer.head) codeHeadAsTheGet(req, res, negotiated.encoding, threshold);
  }

  /** Reads the request body when it needs decoding (planBody), then hands on. */
  function continueRequest(req: IncomingMessage, next: Next, refusal: unknown): void {
    if (refusal !== undefined) {
      next(refusal);
      return;
    }
    let plan: ReturnType<typeof planBody>;
    try {
      plan = planBody(req);
    } catch (error) {
      next(error);
      return;
    }
    if (plan === undefined) {
      next();
      return;
    }
    readPlannedBody(req, plan, resolved.maxBodyBytes).then(
      (body) => {
        const parsed = req as IncomingMessage & { body?: unknown; _body?: boolean };
        parsed.body = body;
        // body-parser 1 (Express 4) skips requests marked so; body-parser 2 skips read ones.
        parsed._body = true;
        next();
      },
      (error: unknown) => next(error),
    );
  }

  /**
   * An answer in another format or charset than UTF-8 JSON, or one the client accepts coded:
   * the variant conditional-requests tags, the writers converting `res.json` and JSON bodies
   * given to `res.end`, and compression.
   */
  function negotiateRepresentation(
    req: IncomingMessage,
    res: ServerResponse,
    negotiated: Negotiated,
    converts: boolean,
    refusal: unknown,
    next: Next,
  ): void {
    /** Whether this answer is written in the negotiated format rather than as sent. */
    function representedAs(res: ServerResponse): boolean {
      const type = mediaTypeOf(res);
      return converts && (type === 'application/json' || type === negotiated.mediaType);
    }

    function encodingOf(bodyLength: number | undefined): string | undefined {
      return compress === false
        ? undefined
        : responseEncoding(req, res, negotiated.encoding, threshold, bodyLength);
    }

    decisions.set(res, encodingOf);
    setRepresentationVariant(res, (_res, bodyLength, bodiless) => {
      const names: string[] = [];
      if (bodiless ? converts : representedAs(res)) {
        const format = VARIANT_OF_MEDIA_TYPE[negotiated.mediaType];
        if (format !== undefined) names.push(format);
        if (negotiated.charset === 'iso-8859-1') names.push('latin1');
      }
      // Without content, the coding a GET's JSON would get: known only while every body is coded.
      const encoding = bodiless
        ? compress !== false && threshold === 0
          ? negotiated.encoding
          : undefined
        : encodingOf(bodyLength);
      if (encoding !== undefined) names.push(encoding);
      return names;
    });

    /**
     * Installed after compression's, so they run before it: the body is converted first, then
     * coded.
     */
    function installWriters(): void {
      if (!converts) return;
      let rendered = false;
      const express = res as ServerResponse & {
        json?: (body?: unknown) => unknown;
        send?: (body?: unknown) => unknown;
      };
      const originalJson = express.json;
      const originalSend = express.send;
      if (typeof originalSend === 'function') {
        if (typeof originalJson === 'function') {
          express.json = function jsonInNegotiatedFormat(this: ServerResponse, value?: unknown) {
            const json = JSON.stringify(value);
            if (json === undefined) return originalJson.call(this, value);
            const { body, type } = render(negotiated, json);
            rendered = true;
            this.setHeader('Content-Type', type);
            if (negotiated.format === 'jsonp') this.setHeader('X-Content-Type-Options', 'nosniff');
            return originalSend.call(this, body);
          };
        }
        // A JSON body sent as text or bytes is converted before Express's res.send measures and
        // tags it (Content-Length, its own ETag), as res.json's is; and res.send hands a HEAD's
        // body to no one (it calls end() without it), so a HEAD gets the GET's headers this way
        // only (RFC 9110 §9.3.2).
        express.send = function sendInNegotiatedFormat(this: ServerResponse, ...args: unknown[]) {
          const converted = rendered ? undefined : renderedChunk(this, negotiated, args[0]);
          // Every argument passed on otherwise (Express 4 still takes `send(status, body)`).
          if (converted === undefined) return Reflect.apply(originalSend, this, args);
          rendered = true;
          return originalSend.call(this, converted);
        };
      }

      // Envelopes written straight to res.end (error-envelope's sendError, replays) follow the
      // negotiated format too; a body that is not JSON after all is sent as it is.
      const originalEnd = res.end;
      res.end = function endInNegotiatedFormat(this: ServerResponse, ...args: unknown[]) {
        const body = rendered ? undefined : renderedChunk(this, negotiated, args[0]);
        if (body !== undefined) {
          rendered = true;
          this.setHeader('Content-Length', body.length);
          return Reflect.apply(originalEnd, this, [body]) as ServerResponse;
        }
        return Reflect.apply(originalEnd, this, args) as ServerResponse;
      } as ServerResponse['end'];
    }

    function afterCompression(): void {
      installWriters();
      continueRequest(req, next, refusal);
    }

    // Without a coding the client accepts, compression would only ever pass the answer through.
    if (compressor === undefined || negotiated.encoding === undefined) {
      afterCompression();
      return;
    }
    compressor(req as never, res as never, afterCompression);
  }

  function contentNegotiationMiddleware(
    req: IncomingMessage,
    res: ServerResponse,
    next: Next,
  ): void {
    if (hasConditionalRequests(res)) {
      next(orderError('conditionalRequests()'));
      return;
    }
    if ('body' in req) {
      next(orderError('the body parsers (express.json() and the like)'));
      return;
    }

    let negotiated: Negotiated;
    let refusal: unknown;
    try {
      negotiated = negotiatePlainJson(req) ?? negotiate(req);
    } catch (error) {
      // The answer to a refused negotiation is itself in the fallback: JSON, UTF-8, no coding.
      refusal = error;
      negotiated = {
        format: 'json',
        mediaType: 'application/json',
        charset: 'utf-8',
        language: undefined,
        encoding: undefined,
        callback: undefined,
      };
    }
    setNegotiated(req, negotiated);
    if (negotiated.language !== undefined) {
      Object.defineProperty(req, 'language', LANGUAGE_PROPERTY);
    }

    // Registered before compression's own hook, so it runs after it (the hook registered last
    // runs first, and compression's on-headers wrapper on the response runs before any hook
    // on the app's prototype) and sees the coding compression chose.
    const method = req.method;
    const answer: Answer = {
      req,
      negotiated,
      // Node's parser gives methods in capitals; only another caller's request needs the case folded.
      head: method === 'HEAD' || (method !== 'GET' && (method ?? 'GET').toUpperCase() === 'HEAD'),
    };
    beforeHeaders(res, negotiatedHeaders, answer);

    // An identity-coded UTF-8 JSON answer is the representation the resource's tag names: it
    // needs nothing more (the common answer, so it allocates no closure).
    const converts = negotiated.format !== 'json' || negotiated.charset !== 'utf-8';
    if (converts || negotiated.encoding !== undefined) {
      negotiateRepresentation(req, res, negotiated, converts, refusal, next);
      return;
    }
    continueRequest(req, next, refusal);
  }
  // Found by checkContentNegotiationOrder(app) at start-up.
  Object.defineProperty(contentNegotiationMiddleware, CONTENT_NEGOTIATION_MARK, { value: true });
  return contentNegotiationMiddleware;
}
