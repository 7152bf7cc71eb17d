/**
 * @module The shape of an API description: what a service says once about each resource, and
 * what the generators (OpenAPI here, GraphQL in `@resourceful/graphql-description`) read.
 */
import type { StandardJSONSchemaV1 } from '@standard-schema/spec';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * Where a schema comes from: any Standard Schema that can give JSON Schema (zod 4, and every
 * library implementing Standard JSON Schema v1), or a JSON Schema object written by hand.
 */
export type SchemaSource = StandardJSONSchemaV1 | JsonSchema;

/**
 * How a list is paged: `page` (`page`, `page_size`), `offset` (`limit`, `offset`), and `token`
 * (`page_token`: a signed continuation token the service hands out in `next` links;
 * collection-pagination's `continuation` option). `token` goes with `page` or `offset`, whose
 * `page_size` / `limit` size the token pages.
 */
export type PagingKind = 'page' | 'offset' | 'token';

/** When a collection's answers carry its totals (collection-pagination's `totals`). */
export type TotalsMode = 'always' | 'on-request';

/**
 * Where the described resources are kept: `external` (a database or another service, which can
 * be unreachable: every operation can answer 503 with `Retry-After`) or `in-process` (the
 * service's own memory: only what reaches the `Service-Request-Id` store can answer 503).
 */
export type ResourceStorage = 'external' | 'in-process';

/** The list options of a collection, as `@resourceful/collection-pagination` takes them. */
export interface ListDescription {
  /** Properties `sort_by` accepts. @default [] */
  readonly sortable?: readonly string[];
  /** Properties accepted as equality filters (`?state=ok`). @default [] */
  readonly filterable?: readonly string[];
  /** Timestamp properties with `{name}_after` / `{name}_before` (and `start_time`/`end_time`). */
  readonly timeSelectable?: readonly string[];
  /**
   * Paging conventions the list accepts: `page` (page, page_size), `offset` (limit, offset), and
   * `token` (page_token, beside one of the other two) when the service hands out continuation
   * tokens for it.
   * @default ['page', 'offset']
   */
  readonly paging?: readonly PagingKind[];
  /**
   * When the answers carry `total_items` and `total_pages`, as collection-pagination's `totals`
   * option: `'always'`, or `'on-request'` (only with `total_required=true`, which the list then
   * documents). @default 'always'
   */
  readonly totals?: TotalsMode;
  /**
   * The deepest `offset` the list serves (collection-pagination-pg's `maxOffset`, which a store
   * paging by keyset sets): a deeper `offset`, or a `page` whose first item lies deeper, is a 400
   * naming it. The document states it as the `offset` parameter's `maximum`.
   * @default Number.MAX_SAFE_INTEGER (collection-pagination's own bound: 2^53 − 1)
   */
  readonly maxOffset?: number;
  /** The list items, when they are a summary of the resource. @default the representation */
  readonly summary?: SchemaSource;
}

/** A sub-resource action: `POST {resource}/{id}/{name}` (spec: "Complex operations"). */
export interface ActionDescription {
  readonly name: string;
  readonly summary: string;
  /** The JSON body it takes, when it takes one. */
  readonly body?: SchemaSource;
  /** A valid body, for the documentation. */
  readonly example?: unknown;
}

/** A schema with the type name the generators give it (OpenAPI component, GraphQL type). */
export interface NamedSchema {
  /** PascalCase: `EventType`. */
  readonly name: string;
  readonly schema: SchemaSource;
}

/** The list options of a sub-collection: a list's, its items being the sub-collection's own. */
export type SubCollectionListDescription = Omit<ListDescription, 'summary'>;

/**
 * A paged collection that belongs to one resource: `GET {resource}/{id}/{name}` (spec:
 * "Sub-collections"), such as a capture's refunds or an agreement's action history.
 */
export interface SubCollectionDescription {
  /** The path segment under the resource: `refunds`, `event-types`. */
  readonly name: string;
  readonly summary: string;
  /**
   * What it lists: the name of a described resource (`'Refund'`, listed as that resource's
   * representation), or a named object schema for items that are not resources of their own.
   */
  readonly items: string | NamedSchema;
  /** Sorting, filters, time selection and paging, as a list takes them. @default both paging conventions, nothing else */
  readonly list?: SubCollectionListDescription;
}

/**
 * A search of the collection: `POST {path}` with the criteria as the JSON body and the paging in
 * the query; the answer is the collection envelope, its links with method POST (spec: "Complex
 * operations", search).
 */
export interface SearchDescription {
  /** The path under the version: `/payments/search-billing-agreements`. */
  readonly path: string;
  readonly summary: string;
  /** The criteria body. Every property optional is the usual shape. */
  readonly criteria: SchemaSource;
  /** A valid criteria body, for the documentation. */
  readonly example?: unknown;
  /** @default ['page', 'offset'] */
  readonly paging?: readonly ('page' | 'offset')[];
  /** As a list's `totals`. @default 'always' */
  readonly totals?: TotalsMode;
}

/** The standard operations a resource supports; each is off unless named. */
export interface ResourceOperations {
  readonly list?: ListDescription;
  readonly create?: SchemaSource;
  readonly read?: boolean;
  /** PUT: replace, or create with a client id when `upsert` is set. */
  readonly replace?: boolean | { readonly upsert: boolean };
  /**
   * PATCH with JSON Patch (RFC 6902) or merge patch (RFC 7396); with `upsert`, a PATCH of an id
   * that does not exist creates it (201), as `jsonPatchUpdate`'s `upsert` option does.
   */
  readonly patch?: boolean | { readonly upsert: boolean };
  readonly delete?: boolean;
}

export interface ResourceDescription {
  /** The type name, singular and in PascalCase: `CreditCard`. */
  readonly name: string;
  /** The collection path under the version: `/vault/credit-cards`. */
  readonly path: string;
  /** One sentence on what the resource is; the documentation's section text. */
  readonly summary: string;
  /** The single resource as the service answers it (output). */
  readonly representation: SchemaSource;
  readonly operations: ResourceOperations;
  /**
   * Fields the client cannot set: refused on PUT/PATCH and left out of create bodies.
   * `id`, `create_time`, `update_time` and `links` always are.
   */
  readonly readOnly?: readonly string[];
  /** Deprecated fields and enum values (`"state"` or `"state.SUSPENDED"`) with the reason. */
  readonly deprecated?: Readonly<Record<string, string>>;
  readonly actions?: readonly ActionDescription[];
  /** Paged collections under each resource, linked from it. */
  readonly subCollections?: readonly SubCollectionDescription[];
  /** A search of the collection by criteria. */
  readonly search?: SearchDescription;
  /** A valid create body, shown in the documentation (and sent by the example's own tests). */
  readonly example?: unknown;
}

/** An operation that is not one of a resource's standard ones (spec: "Complex operations"). */
export interface OperationDescription {
  /** A unique, stable name: `createPaymentDecision`. */
  readonly operationId: string;
  readonly method: 'GET' | 'POST';
  /** The path under the version, with `{param}` placeholders: `/risk/decisions`. */
  readonly path: string;
  readonly summary: string;
  readonly kind: 'resource-oriented' | 'composite' | 'transient' | 'computed';
  readonly body?: SchemaSource;
  /**
   * A valid body, for the documentation; for a computed resource, valid query parameters
   * (`{ currency: 'USD' }`), shown as each parameter's `example`.
   */
  readonly example?: unknown;
  /** Query parameters of a computed resource, as an object schema. */
  readonly query?: SchemaSource;
  /** The answer's body. */
  readonly response: SchemaSource;
  /**
   * The type name of the answer, when the operation does not create a described resource.
   * @default `{OperationId}Result`
   */
  readonly responseName?: string;
  /** The resource a resource-oriented or composite operation creates (201 + Location). */
  readonly creates?: string;
}

export interface ApiDescriptionInit {
  readonly title: string;
  /** The document's version, e.g. `1.0.0`. */
  readonly version: string;
  /** The path version the resources are served under: `v1`. */
  readonly pathVersion: string;
  readonly summary?: string;
  readonly resources: readonly ResourceDescription[];
  readonly operations?: readonly OperationDescription[];
  /**
   * Where the resources are kept; with `external`, every operation documents 503 with
   * `Retry-After` (the store unreachable). @default 'external'
   */
  readonly storage?: ResourceStorage;
  /**
   * Where the `Service-Request-Id` store keeps the ids: `external` (Redis: it can be unreachable,
   * and every POST taking `Service-Request-Id` documents 503 with `Retry-After`) or `in-process`
   * (service-request-idempotency's `memoryStore`: no 503 of its own; the POSTs document 503 only
   * when `storage` is `external`). @default 'external'
   */
  readonly idempotencyStorage?: ResourceStorage;
  /**
   * The longest `Service-Request-Id` the service takes: service-request-idempotency's
   * `maxIdLength`, when the service changes it. @default 255 (its default)
   */
  readonly maxServiceRequestIdLength?: number;
}

/** A checked description, schemas resolved to JSON Schema once. */
export interface ApiDescription {
  readonly title: string;
  readonly version: string;
  readonly pathVersion: string;
  readonly summary: string | undefined;
  readonly resources: readonly DescribedResource[];
  readonly operations: readonly DescribedOperation[];
  readonly storage: ResourceStorage;
  readonly idempotencyStorage: ResourceStorage;
  /** The longest `Service-Request-Id` the service takes. */
  readonly maxServiceRequestIdLength: number;
}

export interface DescribedResource {
  readonly name: string;
  readonly path: string;
  readonly summary: string;
  readonly representation: JsonSchema;
  readonly create: JsonSchema | undefined;
  /** The create schema as given, so other outputs (GraphQL mutations) validate with it. */
  readonly createSource: SchemaSource | undefined;
  readonly list:
    | (Required<Omit<ListDescription, 'summary'>> & { readonly summary: JsonSchema })
    | undefined;
  readonly read: boolean;
  readonly replace: false | { readonly upsert: boolean };
  readonly patch: false | { readonly upsert: boolean };
  readonly delete: boolean;
  readonly readOnly: readonly string[];
  readonly deprecated: Readonly<Record<string, string>>;
  readonly actions: readonly DescribedAction[];
  readonly subCollections: readonly DescribedSubCollection[];
  readonly search: DescribedSearch | undefined;
  readonly example: unknown;
}

export interface DescribedAction {
  readonly name: string;
  readonly summary: string;
  readonly body: JsonSchema | undefined;
  /** The body schema as given, so other outputs (GraphQL mutations) validate with it. */
  readonly bodySource: SchemaSource | undefined;
  readonly example: unknown;
}

export interface DescribedSubCollection {
  readonly name: string;
  readonly summary: string;
  readonly items: {
    /** The type name of the items. */
    readonly name: string;
    readonly schema: JsonSchema;
    /** True when the items are a described resource's representation. */
    readonly resource: boolean;
  };
  readonly list: Required<SubCollectionListDescription>;
}

export interface DescribedSearch {
  readonly path: string;
  readonly summary: string;
  readonly criteria: JsonSchema;
  /** The criteria schema as given, so other outputs (GraphQL) validate with it. */
  readonly criteriaSource: SchemaSource;
  readonly example: unknown;
  readonly paging: readonly ('page' | 'offset')[];
  readonly totals: TotalsMode;
}

export interface DescribedOperation {
  readonly operationId: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly summary: string;
  readonly kind: OperationDescription['kind'];
  readonly body: JsonSchema | undefined;
  /** The body schema as given, so other outputs (GraphQL) validate with it. */
  readonly bodySource: SchemaSource | undefined;
  readonly example: unknown;
  readonly query: JsonSchema | undefined;
  /** The query schema as given. */
  readonly querySource: SchemaSource | undefined;
  readonly response: JsonSchema;
  /** The answer's type name: the created resource's, or `responseName`. */
  readonly responseName: string;
  readonly creates: string | undefined;
}
