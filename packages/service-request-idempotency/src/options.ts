/**
 * @module The options of the middleware: their types, their defaults, and their validation at
 * construction, with messages that say how to fix a mistake.
 */
import type { IncomingMessage } from 'node:http';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  describeValue,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import {
  DEFAULT_LOCK_TTL_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_ID_LENGTH,
  DEFAULT_REPLAY_HEADERS,
  DEFAULT_TTL_MS,
  IDEMPOTENCY_KEY_HEADER,
  NEVER_REPLAYED_HEADERS,
  REPLAYED_HEADER,
  SERVICE_REQUEST_ID_HEADER,
} from './constants.js';
import { type FingerprintRequest, requestFingerprint } from './fingerprint.js';
import { memoryStore } from './memory-store.js';
import { authorizationPrincipal } from './scope.js';
import type { IdempotencyStore } from './types.js';

/** The request as this package reads it: Node's, plus what Express and body parsers add. */
export type IdempotentRequest = IncomingMessage & {
  originalUrl?: string;
  body?: unknown;
};

export interface ServiceRequestIdempotencyOptions {
  /** Where locks and responses live. @default memoryStore() (one per middleware) */
  store?: IdempotencyStore;
  /** The request header carrying the id. @default 'Service-Request-Id' */
  header?: string;
  /** Further header names accepted for the id. @default ['Idempotency-Key'] */
  aliases?: readonly string[];
  /** Also read the id from a query parameter of the same name (the spec allows it). @default true */
  query?: boolean;
  /** Answer 400 when a request of `methods` has no id. @default false */
  required?: boolean;
  /** Methods made idempotent; others pass through untouched. @default ['POST'] */
  methods?: readonly string[];
  /**
   * The caller's identity; ids are scoped by it. `undefined` or `''` is the anonymous scope.
   * @default a SHA-256 of the Authorization header
   */
  principal?: (req: IdempotentRequest) => string | undefined | Promise<string | undefined>;
  /**
   * What makes a repeat "the same request"; a different value → 422. `false` compares nothing.
   * @default SHA-256 of method, URL (without the id parameter) and parsed body, keys sorted
   */
  fingerprint?: false | ((req: IdempotentRequest) => string | Promise<string>);
  /** How long a response is kept for replay, in ms. @default 86400000 (24 h) */
  ttlMs?: number;
  /** How long a lock lives if the process dies mid-request, in ms. @default 60000 */
  lockTtlMs?: number;
  /** Larger response bodies are not stored for replay (a repeat gets 409). @default 1048576 */
  maxBodyBytes?: number;
  /** Longest id accepted. @default 255 */
  maxIdLength?: number;
  /**
   * Headers a replay carries over from the stored response.
   * @default ['Location', 'Content-Type', 'ETag', 'Link', 'Preference-Applied', 'Vary'] and the
   *   app's error code header (error-envelope's `codeHeader`, `Error-Code` by default)
   */
  replayHeaders?: readonly string[];
  /** Header marking a replayed response (value `true`). @default 'Idempotent-Replayed' */
  replayedHeader?: string;
  /** Wait for an in-flight first request and replay it, instead of 409. @default false */
  waitForInFlight?: boolean;
  /** Longest wait with `waitForInFlight`, in ms; then 409. @default 10000 */
  waitTimeoutMs?: number;
  /** `Retry-After` seconds on 409 (in flight) and 503 (store down). @default 1 */
  retryAfterSeconds?: number;
  /** When the store cannot be reached, run the handler without protection instead of 503. @default false */
  failOpen?: boolean;
  /** Called with every store failure (for logs and metrics). @default none */
  onStoreError?: (error: unknown) => void;
}

/** The defaults, as documented. */
export const DEFAULT_OPTIONS = {
  header: SERVICE_REQUEST_ID_HEADER,
  aliases: [IDEMPOTENCY_KEY_HEADER],
  query: true,
  required: false,
  methods: ['POST'],
  ttlMs: DEFAULT_TTL_MS,
  lockTtlMs: DEFAULT_LOCK_TTL_MS,
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  maxIdLength: DEFAULT_MAX_ID_LENGTH,
  replayHeaders: DEFAULT_REPLAY_HEADERS,
  replayedHeader: REPLAYED_HEADER,
  waitForInFlight: false,
  waitTimeoutMs: 10_000,
  retryAfterSeconds: 1,
  failOpen: false,
} as const;

export interface ResolvedOptions {
  readonly store: IdempotencyStore;
  readonly header: string;
  readonly idNames: readonly string[];
  readonly query: boolean;
  readonly required: boolean;
  readonly methods: ReadonlySet<string>;
  readonly principal: (req: IdempotentRequest) => string | undefined | Promise<string | undefined>;
  readonly fingerprint: (req: IdempotentRequest) => string | Promise<string>;
  readonly ttlMs: number;
  readonly lockTtlMs: number;
  readonly maxBodyBytes: number;
  readonly maxIdLength: number;
  /** Lower-case name → name as configured. */
  readonly replayHeaders: ReadonlyMap<string, string>;
  /** The default allow-list: it also carries the app's error code header (error-envelope). */
  readonly replayCodeHeader: boolean;
  readonly replayedHeader: string;
  readonly waitForInFlight: boolean;
  readonly waitTimeoutMs: number;
  readonly retryAfterSeconds: number;
  readonly failOpen: boolean;
  readonly onStoreError: (error: unknown) => void;
}

const OPTION_NAMES = [
  'store',
  'header',
  'aliases',
  'query',
  'required',
  'methods',
  'principal',
  'fingerprint',
  'ttlMs',
  'lockTtlMs',
  'maxBodyBytes',
  'maxIdLength',
  'replayHeaders',
  'replayedHeader',
  'waitForInFlight',
  'waitTimeoutMs',
  'retryAfterSeconds',
  'failOpen',
  'onStoreError',
] as const satisfies readonly (keyof ServiceRequestIdempotencyOptions)[];

/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const PREFIX = 'serviceRequestIdempotency';

/** A wrong option value: `ERR_RESOURCEFUL_INVALID_OPTION`, naming the option where known. */
function fail(message: string, option?: string): never {
  throw optionError(OPTION_ERROR_CODES.invalidOption, PREFIX, message, option);
}

function integer(name: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    fail(`"${name}" must be an integer of at least ${min}, got ${describeValue(value)}.`, name);
  }
  return value;
}

function boolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  return booleanOption(PREFIX, name, value, fallback);
}

function headerName(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !TOKEN.test(value)) {
    fail(
      `"${name}" must be a header name such as "${fallback}", got ${describeValue(value)}.`,
      name,
    );
  }
  return value;
}

function headerList(name: string, value: unknown, fallback: readonly string[]): string[] {
  if (value === undefined) return [...fallback];
  if (!Array.isArray(value)) fail(`"${name}" must be an array of header names.`, name);
  return value.map((item: unknown) => headerName(name, item, fallback[0] ?? 'Location'));
}

function isStore(value: unknown): value is IdempotencyStore {
  if (typeof value !== 'object' || value === null) return false;
  const store = value as Record<string, unknown>;
  return ['acquire', 'complete', 'release', 'get'].every(
    (method) => typeof store[method] === 'function',
  );
}

/** Validates the options and resolves every default once. */
export function resolveOptions(options: ServiceRequestIdempotencyOptions = {}): ResolvedOptions {
  assertOptionsObject(PREFIX, options);
  assertKnownOptions(PREFIX, options, OPTION_NAMES);

  if (options.store !== undefined && !isStore(options.store)) {
    fail(
      '"store" must implement acquire, complete, release and get (see memoryStore, redisStore).',
      'store',
    );
  }
  const header = headerName('header', options.header, DEFAULT_OPTIONS.header);
  const aliases = headerList('aliases', options.aliases, DEFAULT_OPTIONS.aliases);
  const idNames = [header, ...aliases].filter(
    (name, index, all) =>
      all.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === index,
  );

  let methods: string[] = [...DEFAULT_OPTIONS.methods];
  if (options.methods !== undefined) {
    if (!Array.isArray(options.methods) || options.methods.length === 0) {
      fail('"methods" must be a non-empty array such as ["POST"].', 'methods');
    }
    methods = options.methods.map((method: unknown) => {
      if (typeof method !== 'string' || !TOKEN.test(method)) {
        fail(
          `"methods" must hold method names such as "POST", got ${describeValue(method)}.`,
          'methods',
        );
      }
      return method.toUpperCase();
    });
  }

  if (options.principal !== undefined && typeof options.principal !== 'function') {
    fail('"principal" must be a function (req) => string | undefined.', 'principal');
  }
  const fingerprintOption = options.fingerprint;
  if (
    fingerprintOption !== undefined &&
    fingerprintOption !== false &&
    typeof fingerprintOption !== 'function'
  ) {
    fail('"fingerprint" must be a function (req) => string, or false.', 'fingerprint');
  }
  if (options.onStoreError !== undefined && typeof options.onStoreError !== 'function') {
    fail('"onStoreError" must be a function (error) => void.', 'onStoreError');
  }

  const replayHeaders = new Map<string, string>();
  for (const name of headerList('replayHeaders', options.replayHeaders, DEFAULT_REPLAY_HEADERS)) {
    if (NEVER_REPLAYED_HEADERS.includes(name.toLowerCase())) {
      fail(
        `"replayHeaders" may not include "${name}": it belongs to one response only.`,
        'replayHeaders',
      );
    }
    replayHeaders.set(name.toLowerCase(), name);
  }
  const replayedHeader = headerName(
    'replayedHeader',
    options.replayedHeader,
    DEFAULT_OPTIONS.replayedHeader,
  );
  replayHeaders.delete(replayedHeader.toLowerCase());

  const fingerprint =
    fingerprintOption === false
      ? () => ''
      : (fingerprintOption ?? ((req: FingerprintRequest) => requestFingerprint(req, idNames)));

  return {
    store: options.store ?? memoryStore(),
    header,
    idNames,
    query: boolean('query', options.query, DEFAULT_OPTIONS.query),
    required: boolean('required', options.required, DEFAULT_OPTIONS.required),
    methods: new Set(methods),
    principal: options.principal ?? authorizationPrincipal,
    fingerprint,
    ttlMs: integer('ttlMs', options.ttlMs, DEFAULT_OPTIONS.ttlMs),
    lockTtlMs: integer('lockTtlMs', options.lockTtlMs, DEFAULT_OPTIONS.lockTtlMs),
    maxBodyBytes: integer('maxBodyBytes', options.maxBodyBytes, DEFAULT_OPTIONS.maxBodyBytes, 0),
    maxIdLength: integer('maxIdLength', options.maxIdLength, DEFAULT_OPTIONS.maxIdLength),
    replayHeaders,
    replayCodeHeader: options.replayHeaders === undefined,
    replayedHeader,
    waitForInFlight: boolean('waitForInFlight', options.waitForInFlight, false),
    waitTimeoutMs: integer('waitTimeoutMs', options.waitTimeoutMs, DEFAULT_OPTIONS.waitTimeoutMs),
    retryAfterSeconds: integer(
      'retryAfterSeconds',
      options.retryAfterSeconds,
      DEFAULT_OPTIONS.retryAfterSeconds,
      0,
    ),
    failOpen: boolean('failOpen', options.failOpen, DEFAULT_OPTIONS.failOpen),
    onStoreError: options.onStoreError ?? (() => undefined),
  };
}
