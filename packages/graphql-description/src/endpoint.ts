/**
 * @module `graphqlEndpoint`: GraphQL over HTTP with graphql-http's handler (POST with a
 * JSON body, GET with `?query=` for queries), the query limits, a nesting and a token bound on
 * the parser, resolver failures answered as REST answers them, and the schema's SDL as text at
 * `{mount}/schema.graphql`.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  functionOption,
  helpLinkOption,
  invalidOption,
  missingOption,
  OPTION_ERROR_CODES,
  optionError,
  positiveIntegerOption,
} from '@resourceful/option-checks';
import {
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  isSchema,
  parse,
  printSchema,
  type Source,
  type ValidationRule,
  validate,
} from 'graphql';
import { createHandler, type Request as GraphqlHttpRequest } from 'graphql-http';
import { answerableResult } from './field-errors.js';
import { limitRules, type QueryLimits, resolveQueryLimits } from './limits.js';
import { DEFAULT_MAX_NESTING, depthOf, tooComplex, tooNested } from './nesting.js';

/**
 * The context resolvers receive by default: the request (an Express request when mounted in an
 * Express app), for links and credentials. Typed against node:http so that the package's types
 * need no Express types.
 */
export interface RequestContext extends Record<PropertyKey, unknown> {
  readonly req: IncomingMessage;
}

export interface GraphqlEndpointOptions<Context extends Record<PropertyKey, unknown>> {
  readonly schema: GraphQLSchema;
  /** The resolvers' context for a request. @default (req) => ({ req }) */
  readonly context?: (req: IncomingMessage) => Context;
  /** Depth and cost bounds. @default DEFAULT_QUERY_LIMITS */
  readonly limits?: QueryLimits;
  /** Tokens the parser reads before refusing a document (graphql-js `maxTokens`). @default 5000 */
  readonly maxTokens?: number;
  /**
   * Brackets (`{`, `(`, `[`) a document may have open at once, counted on the source before it
   * is parsed: deeper documents are refused with `QUERY_TOO_NESTED` instead of exhausting the
   * parser's call stack. @default DEFAULT_MAX_NESTING (64)
   */
  readonly maxNesting?: number;
  /**
   * URL of the API's documentation, sent on the OPTIONS answers as `Link: <help>; rel="help"`
   * (as `@resourceful/http-conventions`' `allowedMethods` sends it on routes); several URLs are
   * one link each, in order. @default false
   */
  readonly help?: string | readonly string[] | false;
  /**
   * Bytes of a POST body the endpoint reads itself, when no body parser ran before it (with
   * `express.json()` mounted first, its `limit` bounds the body instead). A longer body is a 413
   * `PAYLOAD_TOO_LARGE` envelope through the app's error handler. @default 102400 (100 kB, as
   * `express.json()`'s default `limit`)
   */
  readonly maxBodyBytes?: number;
}

/** The bytes of a body read without a body parser when `maxBodyBytes` is not given: 100 kB. */
export const DEFAULT_MAX_BODY_BYTES = 100 * 1024;

/** The path, under the endpoint's mount, of the SDL. */
export const SDL_PATH = '/schema.graphql';

/** GraphQL over HTTP serves GET (queries) and POST; HEAD is GET without the body. */
const ENDPOINT_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'];
const SDL_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/**
 * OPTIONS answers 204 with what the path allows (RFC 9110 §9.3.7); a method it does not serve is
 * a 405 envelope with `Allow`, through the app's error handler. True when the request is answered.
 */
function answeredAllow(
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
  allowed: readonly string[],
  link: string | undefined,
): boolean {
  const method = req.method ?? 'GET';
  if (method === 'OPTIONS') {
    res.statusCode = 204;
    res.setHeader('Allow', allowed.join(', '));
    if (link !== undefined) res.setHeader('Link', link);
    res.end();
    return true;
  }
  if (allowed.includes(method)) return false;
  next(ApiError.methodNotAllowed(allowed));
  return true;
}

/**
 * Parses within the bounds: the nesting first (a linear pass, no recursion), then graphql-js
 * with its token bound. A `RangeError` (a call stack exhausted all the same) becomes the generic
 * limit error: the engine's message is not the client's business.
 */
function parseWithin(source: string | Source, maxTokens: number, maxNesting: number): DocumentNode {
  const text = typeof source === 'string' ? source : source.body;
  if (depthOf(text, maxNesting) > maxNesting) throw tooNested(maxNesting);
  try {
    return parse(source, { maxTokens });
  } catch (error) {
    if (error instanceof RangeError) throw tooComplex();
    throw error;
  }
}

/** graphql-js's `validate`, a `RangeError` answered as the generic limit error. */
function validateWithin(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules?: readonly ValidationRule[],
): readonly GraphQLError[] {
  try {
    return validate(schema, document, rules);
  } catch (error) {
    if (error instanceof RangeError) return [tooComplex()];
    throw error;
  }
}

const FACTORY = 'graphqlEndpoint';

/**
 * Whether `value` is a schema of the graphql module this package runs with. graphql-js's own
 * check throws on a schema of another copy of the module (outside production: "Cannot use
 * GraphQLSchema … from another module or realm", with the schema dumped in the message) and
 * answers false in production; either way that schema is told apart below.
 */
function isSchemaOfThisGraphql(value: unknown): value is GraphQLSchema {
  try {
    return isSchema(value);
  } catch {
    return false;
  }
}

/** The `schema` option: a graphql-js schema (`graphqlSchema`'s, or any other). */
function schemaOption(schema: unknown): GraphQLSchema {
  const expected = 'a GraphQLSchema, such as graphqlSchema(api, options) returns';
  if (schema === undefined) {
    missingOption(FACTORY, 'schema', expected);
  }
  if (isSchemaOfThisGraphql(schema)) return schema;
  // graphql-js tags its classes (Symbol.toStringTag), so a schema of any copy reads so.
  if (Object.prototype.toString.call(schema) === '[object GraphQLSchema]') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      FACTORY,
      '"schema" is a GraphQLSchema made by another copy of the graphql module than the one @resourceful/graphql-description uses, and graphql-js cannot mix the two. Install one copy of graphql (`npm ls graphql` shows them; dedupe it, or pin one version with overrides) and build the schema with it.',
      'schema',
    );
  }
  return invalidOption(FACTORY, 'schema', expected, schema);
}

export function graphqlEndpoint<Context extends Record<PropertyKey, unknown> = RequestContext>(
  options: GraphqlEndpointOptions<Context>,
) {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, [
    'schema',
    'context',
    'limits',
    'maxTokens',
    'maxNesting',
    'help',
    'maxBodyBytes',
  ]);
  const link = helpLinkOption(FACTORY, options.help);
  const schema = schemaOption(options.schema);
  const maxTokens = positiveIntegerOption(FACTORY, 'maxTokens', options.maxTokens, 5000);
  const maxNesting = positiveIntegerOption(
    FACTORY,
    'maxNesting',
    options.maxNesting,
    DEFAULT_MAX_NESTING,
  );
  const maxBodyBytes = positiveIntegerOption(
    FACTORY,
    'maxBodyBytes',
    options.maxBodyBytes,
    DEFAULT_MAX_BODY_BYTES,
  );
  const rules = limitRules(resolveQueryLimits(FACTORY, options.limits, 'limits'));
  const sdl = printSchema(schema);
  const context =
    functionOption(FACTORY, 'context', options.context, 'a function (req) => context') ??
    ((req: IncomingMessage) => ({ req }) as unknown as Context);
  const handle = createHandler<IncomingMessage, undefined, Context>({
    schema,
    context: (req) => context(req.raw),
    validationRules: (_req, _args, specified) => [...specified, ...rules],
    parse: (source) => parseWithin(source, maxTokens, maxNesting),
    validate: validateWithin,
    // A resolver's failure is answered as REST answers it: masked unless an ApiError, its code
    // and retry hint in `extensions`, reported to the app's onError (field-errors.ts).
    onOperation: (req, _args, result) => answerableResult(result, req.raw),
  });

  return function graphqlEndpointMiddleware(
    req: IncomingMessage,
    res: ServerResponse,
    next: (error?: unknown) => void,
  ): void {
    // Under a mount (`app.use('/graphql', …)`) Express strips the mount path from `req.url`.
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === SDL_PATH) {
      if (answeredAllow(req, res, next, SDL_METHODS, link)) return;
      res.statusCode = 200;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(sdl));
      res.end(req.method === 'HEAD' ? undefined : sdl);
      return;
    }
    if (path !== '/' && path !== '') {
      next();
      return;
    }
    if (answeredAllow(req, res, next, ENDPOINT_METHODS, link)) return;
    // HEAD is the GET's answer without its body (RFC 9110 §9.3.2): graphql-http is asked the GET
    // (it knows only GET and POST), and Node leaves the body out of a HEAD's response.
    const asked: IncomingMessage =
      req.method === 'HEAD' ? Object.create(req, { method: { value: 'GET' } }) : req;
    // graphql-http's answers are written as it makes them (GraphQL over HTTP fixes them), but
    // for its bodiless refusals of a request that never became a GraphQL request (415, 406),
    // which go to the app's error handler for the envelope; so does a fault of the handler.
    const body: BodyRead = { tooLarge: false };
    handle(graphqlHttpRequest(asked, maxBodyBytes, body))
      .then(([answer, init]) => {
        // graphql-http answers a body it could not read as unparsable JSON (400); one past the
        // bound is the client's too-large body, as express.json() answers it.
        const refusal = body.tooLarge
          ? ApiError.payloadTooLarge(`A GraphQL request body may be at most ${maxBodyBytes} bytes.`)
          : answer === null
            ? refusalOf(init.status)
            : undefined;
        if (refusal !== undefined) {
          next(refusal);
          return;
        }
        const headers = { ...init.headers };
        // graphql-http's 405 to a mutation sent with GET has a JSON body and no media type.
        if (answer !== null && !hasHeader(headers, 'content-type')) {
          headers['content-type'] = 'application/json; charset=utf-8';
        }
        res.writeHead(init.status, init.statusText, headers);
        res.end(answer);
      })
      .catch(next);
  };
}

/** Whether a body read by the endpoint went past `maxBodyBytes`. */
interface BodyRead {
  tooLarge: boolean;
}

function hasHeader(headers: Readonly<Record<string, string>>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

/**
 * The request as graphql-http reads it: `req.body` when a body parser ran, else the stream, read
 * up to `maxBodyBytes` (past it, or with a `Content-Length` past it, reading stops and `read`
 * says so).
 */
function graphqlHttpRequest(
  req: IncomingMessage,
  maxBodyBytes: number,
  read: BodyRead,
): GraphqlHttpRequest<IncomingMessage, undefined> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  const tooLarge = (reject: (error: Error) => void) => {
    read.tooLarge = true;
    // As body-parser does: stop reading; Node closes the connection after the answer.
    req.pause();
    reject(new Error('The body is larger than maxBodyBytes.'));
  };
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    body:
      parsed !== undefined && parsed !== null
        ? () => parsed as Record<string, unknown>
        : () =>
            new Promise<string>((resolve, reject) => {
              if (Number(req.headers['content-length']) > maxBodyBytes) {
                tooLarge(reject);
                return;
              }
              const chunks: Buffer[] = [];
              let bytes = 0;
              const onData = (chunk: Buffer) => {
                bytes += chunk.length;
                if (bytes > maxBodyBytes) {
                  req.off('data', onData);
                  tooLarge(reject);
                  return;
                }
                chunks.push(chunk);
              };
              req.on('data', onData);
              // Decoded once whole, so a character split between chunks stays one character.
              req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
              req.on('error', reject);
            }),
    raw: req,
    context: undefined,
  };
}

/** The media types graphql-http answers in (GraphQL over HTTP, "Accept"). */
const GRAPHQL_RESPONSE_MEDIA_TYPES = [
  'application/graphql-response+json',
  'application/json',
] as const;

/**
 * The envelope of a refusal graphql-http gives without a body (415, 406; undefined for any
 * other answer, written as it is). GraphQL over HTTP defines no body
 * for them, and its `{"errors": […]}` is the result of a GraphQL request, which these never were;
 * they get the error envelope every other HTTP-level refusal of the API gets (as the 405 of a
 * method the endpoint does not serve), naming the header at fault.
 */
function refusalOf(status: number): ApiError | undefined {
  if (status === 415) {
    return ApiError.unsupportedMediaType(
      'A GraphQL request sent with POST must be application/json in UTF-8.',
      { target: 'Content-Type' },
    );
  }
  if (status === 406) {
    // RFC 9110 §15.5.7: the answer lists what is available.
    return ApiError.notAcceptable(
      `None of the media types in Accept is available. Available: ${GRAPHQL_RESPONSE_MEDIA_TYPES.join(', ')}.`,
      {
        target: 'Accept',
        details: GRAPHQL_RESPONSE_MEDIA_TYPES.map((mediaType) => ({
          code: 'AVAILABLE_MEDIA_TYPE',
          message: mediaType,
          target: 'Accept',
        })),
      },
    );
  }
  return undefined;
}
