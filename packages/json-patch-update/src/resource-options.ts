/**
 * @module The options a resource shares between PATCH and PUT, validated and resolved once.
 */
import type { IncomingMessage } from 'node:http';
import { etagFor, type KeyedLock } from '@resourceful/conditional-requests';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  compareAndSetOption,
  functionOption,
  invalidOption,
  positiveIntegerOption,
  requiredFunctionOption,
} from '@resourceful/option-checks';
import { readOnlyOption } from './call-options.js';
import { ALWAYS_READ_ONLY, type ReadOnlyField } from './read-only.js';
import { isStandardSchema, type StandardSchemaV1 } from './schema.js';
import { MAX_OPERATIONS } from './validate-operations.js';
import { DEFAULT_MAX_DEPTH } from './value-checks.js';

/** A request as these handlers read it; Express's `Request` is one. */
export type ResourceRequest = IncomingMessage & {
  // Express 5's types allow string[] for wildcard parameters; the handlers read `id` as a string.
  params?: Record<string, string | string[] | undefined>;
  body?: unknown;
};

/** What `save` is told about the write. */
export interface SaveContext<T> {
  readonly id: string;
  /** The resource did not exist and is being created. */
  readonly created: boolean;
  /** The stored resource before this write (`undefined` on create). */
  readonly previous: T | undefined;
  /** Its entity tag, for stores that compare-and-set across processes. */
  readonly previousETag: string | undefined;
  readonly req: ResourceRequest;
}

/** Options shared by `jsonPatchUpdate` and `putReplace`. */
export interface ResourceUpdateOptions<T extends object> {
  /** Reads the stored resource; `undefined` or `null` when there is none. */
  load: (id: string, req: ResourceRequest) => T | null | undefined | Promise<T | null | undefined>;
  /** Stores the new resource. Throwing (an ApiError, say) fails the request; nothing is sent. */
  save: (resource: T, context: SaveContext<T>) => void | Promise<void>;
  /**
   * Validates the complete new resource (ids and times included); its output is saved. Any
   * Standard Schema: zod (3.24+, 4), valibot (1), ArkType (2) …
   */
  schema?: StandardSchemaV1<unknown, T>;
  /** Read-only fields besides `id`, `create_time`, `update_time`: names or JSON Pointers. */
  readOnly?: readonly string[];
  /** The resource id of a request. @default req.params.id */
  id?: (req: ResourceRequest) => string;
  /**
   * The representation sent to clients (for instance with a card number masked, or with absolute
   * links built from the request). @default identity
   */
  represent?: (resource: T, req: ResourceRequest) => unknown;
  /**
   * The entity tag of a resource.
   * @default etagFor(represent(resource, req)), as conditionalRequests() tags GET
   */
  etag?: (resource: T, req: ResourceRequest) => string;
  /** `Location` of a created resource. @default the request path */
  location?: (resource: T, req: ResourceRequest) => string;
  /** 428 when an existing resource is changed without `If-Match`. @default false */
  requireIfMatch?: boolean;
  /** Set `create_time` on create and `update_time` on every write. @default true */
  timestamps?: boolean;
  /** The clock for the timestamps. @default () => new Date() */
  now?: () => Date;
  /** Largest body read, in bytes. @default 102400 */
  maxBodyBytes?: number;
  /** Deepest nesting of a value in a request. @default 32 */
  maxDepth?: number;
  /** The lock serialising writes of one resource. @default the process-wide lock of conditional-requests */
  lock?: KeyedLock;
  /**
   * `save` compares and sets: it stores only while the stored resource is still `previous`
   * (absent on create) and throws conditional-requests' `StaleVersionError` otherwise; no
   * in-process lock is taken, so the check holds across processes. Not together with `lock`.
   * @default false
   */
  compareAndSet?: boolean;
}

export const RESOURCE_DEFAULTS = Object.freeze({
  requireIfMatch: false,
  compareAndSet: false,
  timestamps: true,
  maxBodyBytes: 100 * 1024,
  maxDepth: DEFAULT_MAX_DEPTH,
  maxOperations: MAX_OPERATIONS,
});

const SHARED_KEYS = [
  'load',
  'save',
  'schema',
  'readOnly',
  'id',
  'represent',
  'etag',
  'location',
  'requireIfMatch',
  'timestamps',
  'now',
  'maxBodyBytes',
  'maxDepth',
  'lock',
  'compareAndSet',
] as const;

/** The options with every default resolved. */
export interface ResolvedResource<T extends object> {
  load: (id: string, req: ResourceRequest) => T | null | undefined | Promise<T | null | undefined>;
  save: (resource: T, context: SaveContext<T>) => void | Promise<void>;
  schema: StandardSchemaV1<unknown, T> | undefined;
  readOnly: readonly ReadOnlyField[];
  id: (req: ResourceRequest) => string;
  represent: (resource: T, req: ResourceRequest) => unknown;
  etag: (resource: T, req: ResourceRequest) => string;
  location: (resource: T, req: ResourceRequest) => string;
  requireIfMatch: boolean;
  timestamps: boolean;
  now: () => Date;
  maxBodyBytes: number;
  maxDepth: number;
  lock: KeyedLock | undefined;
  compareAndSet: boolean;
}

function requestParamId(req: ResourceRequest): string {
  const id = req.params?.id;
  if (typeof id !== 'string' || id === '') {
    throw new Error(
      'The route has no ":id" parameter; pass an "id" option that reads the resource id.',
    );
  }
  return id;
}

function pathOf(req: ResourceRequest): string {
  const url = (req as ResourceRequest & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Validates the options (unknown keys, types) and resolves the defaults. */
export function resolveResourceOptions<T extends object>(
  factory: string,
  options: ResourceUpdateOptions<T>,
  extraKeys: readonly string[],
): ResolvedResource<T> {
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, [...SHARED_KEYS, ...extraKeys]);
  const load = requiredFunctionOption(factory, 'load', options.load);
  const save = requiredFunctionOption(factory, 'save', options.save);
  if (options.schema !== undefined && !isStandardSchema(options.schema)) {
    invalidOption(
      factory,
      'schema',
      'a Standard Schema (a zod, valibot or ArkType schema, for instance)',
      options.schema,
    );
  }
  const readOnly = readOnlyOption(factory, options.readOnly, ALWAYS_READ_ONLY);
  const represent =
    functionOption(factory, 'represent', options.represent) ?? ((resource: T) => resource);
  functionOption(factory, 'etag', options.etag);
  if (options.lock !== undefined && typeof options.lock?.run !== 'function') {
    invalidOption(
      factory,
      'lock',
      'a KeyedLock from @resourceful/conditional-requests',
      options.lock,
    );
  }
  const compareAndSet = compareAndSetOption(factory, options, RESOURCE_DEFAULTS.compareAndSet);
  return {
    load,
    save,
    schema: options.schema,
    readOnly,
    id: functionOption(factory, 'id', options.id) ?? requestParamId,
    represent,
    etag: options.etag ?? ((resource: T, req) => etagFor(represent(resource, req))),
    location:
      functionOption(factory, 'location', options.location) ?? ((_resource, req) => pathOf(req)),
    requireIfMatch: booleanOption(
      factory,
      'requireIfMatch',
      options.requireIfMatch,
      RESOURCE_DEFAULTS.requireIfMatch,
    ),
    timestamps: booleanOption(
      factory,
      'timestamps',
      options.timestamps,
      RESOURCE_DEFAULTS.timestamps,
    ),
    now: functionOption(factory, 'now', options.now) ?? (() => new Date()),
    maxBodyBytes: positiveIntegerOption(
      factory,
      'maxBodyBytes',
      options.maxBodyBytes,
      RESOURCE_DEFAULTS.maxBodyBytes,
    ),
    maxDepth: positiveIntegerOption(
      factory,
      'maxDepth',
      options.maxDepth,
      RESOURCE_DEFAULTS.maxDepth,
    ),
    lock: options.lock,
    compareAndSet,
  };
}
