/**
 * @module The OpenAPI 3.1 document of a described API: every path and verb, the list parameters
 * of the paging conventions each list takes (`page_token` where it pages by continuation token),
 * the headers the conventions use, request bodies with read-only fields marked, every status the
 * Resourceful packages can answer with the error envelope (503 everywhere when the resources'
 * store can be unreachable), and links from creates to reads.
 * @see https://spec.openapis.org/oas/v3.1.0
 */
import { assertKnownOptions, assertOptionsObject, invalidOption } from '@resourceful/option-checks';
import { isApiDescription } from './describe-api.js';
import { propertyNames, requiredNames } from './json-schema.js';
import { enumFilterValues, MAX_FILTER_LENGTH } from './list-filters.js';
import type {
  ApiDescription,
  DescribedOperation,
  DescribedResource,
  DescribedSearch,
  DescribedSubCollection,
  JsonSchema,
  PagingKind,
  SubCollectionListDescription,
  TotalsMode,
} from './types.js';

/** The characters of a Service-Request-Id (service-request-idempotency's `ID_PATTERN`). */
const SERVICE_REQUEST_ID_CHARS = '[A-Za-z0-9._~:+=/@-]';

export interface OpenApiOptions {
  /** The server URL clients call, e.g. `https://api.example.com`. @default '/' */
  readonly serverUrl?: string;
  /** The documentation page, linked as `externalDocs`. */
  readonly documentationUrl?: string;
  /**
   * How clients authenticate: OpenAPI security schemes and the requirement every operation
   * has. @default none: the document says so explicitly (`security: []`)
   */
  /** The API's licence, for `info.license` (SPDX identifier and name). */
  readonly license?: { readonly name: string; readonly identifier?: string; readonly url?: string };
  readonly security?: {
    readonly schemes: Readonly<Record<string, JsonSchema>>;
    readonly requirement: readonly Readonly<Record<string, readonly string[]>>[];
  };
}

/** An OpenAPI 3.1 document, as JSON. */
export type OpenApiDocument = { readonly openapi: '3.1.0' } & JsonSchema;

type Json = Record<string, unknown>;

/** The error-envelope statuses and their meaning, as the Resourceful packages send them. */
export const ERROR_RESPONSES = {
  400: 'A parameter, header or body field is invalid; `target` names it.',
  404: 'No resource at this path.',
  406: 'None of the media types, charsets or encodings in `Accept*` can be served.',
  409: 'The request conflicts with the resource state, or a request with the same `Service-Request-Id` is in flight.',
  412: '`If-Match` or `If-None-Match` did not hold.',
  413: 'The body is larger than the service accepts.',
  414: 'The URL is longer than the service can process.',
  415: 'The body media type, charset or encoding is not supported.',
  422: 'The request is well-formed but breaks a business rule, or reuses a `Service-Request-Id` with another body.',
  428: 'This update requires `If-Match`.',
  500: 'The service failed; not caused by the client.',
  503: 'The service or a store it needs is unavailable; retry after `Retry-After`.',
} as const;

type ErrorStatus = keyof typeof ERROR_RESPONSES;

/**
 * Every operation can answer these: a bad header or parameter, no acceptable format, a URL
 * longer than the service serves (http-conventions' `limitUrlLength`), a fault.
 */
const ALWAYS: readonly ErrorStatus[] = [400, 406, 414, 500];
/** Operations that read a JSON body. */
const WITH_BODY: readonly ErrorStatus[] = [413, 415];
/**
 * POSTs, idempotent through `Service-Request-Id`: 409 (the same id in flight), 422 (the id
 * reused with another body); 503 comes with the store of the ids (`idempotencyStore`).
 */
const IDEMPOTENT_POST: readonly ErrorStatus[] = [409, 422];
/**
 * A PUT or PATCH of an existing resource: a body, the resource may be missing, the write may
 * conflict or fail its preconditions (412), or lack the `If-Match` the service requires (428).
 */
const CONDITIONAL_WRITE: readonly ErrorStatus[] = [...WITH_BODY, 404, 409, 412, 428];

/**
 * The longest `page_token` collection-pagination reads (its `MAX_PAGE_TOKEN_LENGTH`); a longer
 * one is a 400 `PARAMETER_TOO_LONG`.
 */
const MAX_PAGE_TOKEN_LENGTH = 2048;

/**
 * The most entity tags conditional-requests reads from one `If-Match` or `If-None-Match` (its
 * `MAX_LIST_ENTRIES`); more is a 400 `MALFORMED_ENTITY_TAG` naming the header.
 */
const MAX_ENTITY_TAGS = 128;

const FACTORY = 'openApiDocument';

/** A string option that is not empty; `undefined` passes unless the option is required. */
function textOption(
  option: string,
  value: unknown,
  expected = 'a non-empty string',
  required = false,
): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || value === '') invalidOption(FACTORY, option, expected, value);
}

/** A plain object option: not `null`, an array or a primitive. */
function objectOption(option: string, value: unknown, expected: string): object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidOption(FACTORY, option, expected, value);
  }
  return value;
}

/**
 * The values of `openApiDocument`'s options, checked when it is called: the document carries
 * them as they are, so a wrong one would make an invalid document rather than an error.
 */
function checkOptions(options: OpenApiOptions): void {
  textOption('serverUrl', options.serverUrl, 'a URL such as "https://api.example.com"');
  textOption('documentationUrl', options.documentationUrl, 'a URL of the documentation');
  if (options.license !== undefined) {
    const license = objectOption('license', options.license, '{ name, identifier?, url? }');
    assertKnownOptions(FACTORY, license, ['name', 'identifier', 'url'], 'license');
    textOption('license.name', options.license.name, 'a non-empty string', true);
    textOption(
      'license.identifier',
      options.license.identifier,
      'an SPDX identifier such as "MIT"',
    );
    textOption('license.url', options.license.url);
  }
  if (options.security !== undefined) {
    const expected = '{ schemes, requirement }';
    const security = objectOption('security', options.security, expected);
    assertKnownOptions(FACTORY, security, ['schemes', 'requirement'], 'security');
    const schemes = objectOption(
      'security.schemes',
      options.security.schemes,
      'an object of security schemes by name',
    );
    for (const [name, scheme] of Object.entries(schemes)) {
      objectOption(`security.schemes.${name}`, scheme, 'an OpenAPI security scheme object');
    }
    const requirement: unknown = options.security.requirement;
    if (!Array.isArray(requirement)) {
      invalidOption(
        FACTORY,
        'security.requirement',
        'an array of security requirements ({ "name": [scopes] })',
        requirement,
      );
    }
    requirement.forEach((entry: unknown, i) => {
      const named = objectOption(
        `security.requirement[${i}]`,
        entry,
        '{ "scheme name": [scopes] }',
      );
      for (const [name, scopes] of Object.entries(named)) {
        // OpenAPI 3.1 §4.8.30: each name is a scheme of components.securitySchemes.
        if (!Object.hasOwn(schemes, name)) {
          invalidOption(
            FACTORY,
            `security.requirement[${i}]`,
            `names of security.schemes (${Object.keys(schemes).join(', ') || 'none'})`,
            name,
          );
        }
        if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) {
          invalidOption(
            FACTORY,
            `security.requirement[${i}].${name}`,
            'an array of scope names (empty for a scheme without scopes)',
            scopes,
          );
        }
      }
    });
  }
}

export function openApiDocument(
  api: ApiDescription,
  options: OpenApiOptions = {},
): OpenApiDocument {
  if (!isApiDescription(api)) {
    invalidOption(FACTORY, 'api', 'the description describeApi() returns', api);
  }
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, ['serverUrl', 'documentationUrl', 'license', 'security']);
  checkOptions(options);
  const schemas: Json = { ...commonSchemas() };
  const paths: Json = {};
  const base = `/${api.pathVersion}`;
  // Resources kept outside the process: any operation can find their store unreachable.
  const store: readonly ErrorStatus[] = api.storage === 'external' ? [503] : [];
  // A POST taking Service-Request-Id also needs the store of the ids: one outside the process
  // can be unreachable (service-request-idempotency fails closed with 503).
  const postStore: readonly ErrorStatus[] =
    api.storage === 'external' || api.idempotencyStorage === 'external' ? [503] : [];
  let tokenPaging = false;
  let totalsOnRequest = false;

  for (const resource of api.resources) {
    Object.assign(schemas, resourceSchemas(resource));
    const collection: Json = {};
    const item: Json = {};
    const id = idParameter(resource);
    if (resource.list) {
      collection.get = listOperation({
        operationId: `list${resource.name}`,
        summary: `List ${(resource.path.split('/').pop() as string).replace(/-/g, ' ')}`,
        tag: resource.name,
        list: resource.list,
        collection: `${resource.name}Collection`,
        store,
      });
      tokenPaging ||= resource.list.paging.includes('token');
      totalsOnRequest ||= resource.list.totals === 'on-request';
    }
    if (resource.create) collection.post = createOperation(resource, postStore);
    if (resource.read) item.get = readOperation(resource, store);
    if (resource.replace) item.put = replaceOperation(resource, store);
    if (resource.patch) item.patch = patchOperation(resource, store);
    if (resource.delete) item.delete = deleteOperation(resource, store);
    if (Object.keys(collection).length > 0) paths[`${base}${resource.path}`] = collection;
    if (Object.keys(item).length > 0) {
      paths[`${base}${resource.path}/{${id}}`] = { parameters: [pathParameter(id)], ...item };
    }
    for (const action of resource.actions) {
      paths[`${base}${resource.path}/{${id}}/${action.name}`] = {
        parameters: [pathParameter(id)],
        post: actionOperation(resource, action, postStore),
      };
    }
    for (const sub of resource.subCollections) {
      if (!sub.items.resource) schemas[sub.items.name] = sub.items.schema;
      schemas[`${sub.items.name}Collection`] = collectionSchema(sub.items.name);
      paths[`${base}${resource.path}/{${id}}/${sub.name}`] = {
        parameters: [pathParameter(id)],
        get: listOperation({
          operationId: subCollectionOperationId(resource, sub),
          summary: sub.summary,
          tag: resource.name,
          list: { ...sub.list, summary: sub.items.schema },
          collection: `${sub.items.name}Collection`,
          notFound: true,
          store,
        }),
      };
      tokenPaging ||= sub.list.paging.includes('token');
      totalsOnRequest ||= sub.list.totals === 'on-request';
    }
    if (resource.search) {
      schemas[`${resource.name}SearchCriteria`] = resource.search.criteria;
      paths[`${base}${resource.search.path}`] = { post: searchOperation(resource, postStore) };
      totalsOnRequest ||= resource.search.totals === 'on-request';
    }
  }
  for (const operation of api.operations) {
    const path = `${base}${operation.path}`;
    const entry = (paths[path] ?? {}) as Json;
    const parameters = pathParameters(operation.path);
    if (parameters.length > 0) entry.parameters = parameters;
    entry[operation.method.toLowerCase()] = complexOperation(
      api,
      operation,
      schemas,
      operation.method === 'GET' ? store : postStore,
    );
    paths[path] = entry;
  }

  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: api.title,
      version: api.version,
      ...(api.summary ? { summary: api.summary } : {}),
      ...(options.license ? { license: options.license } : {}),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: options.serverUrl ?? '/' }],
    ...(options.documentationUrl ? { externalDocs: { url: options.documentationUrl } } : {}),
    tags: [
      ...api.resources.map((r) => ({ name: r.name, description: r.summary })),
      ...(api.operations.length > 0
        ? [{ name: 'Operations', description: 'Complex operations.' }]
        : []),
    ],
    security: options.security?.requirement ?? [],
    paths,
    components: {
      ...(options.security ? { securitySchemes: options.security.schemes } : {}),
      // Only what the paths refer to, directly or through other components (a description
      // without PATCH needs no JsonPatch, a list with its own offset bound names neither `page`
      // nor `offset`): an unused component is a lint warning. The resources' own schemas stay,
      // referred to or not: they are the description.
      ...referencedComponents(
        paths,
        {
          schemas,
          parameters: commonParameters(
            { tokenPaging, totalsOnRequest },
            api.maxServiceRequestIdLength,
          ),
          headers: commonHeaders(postStore.length > 0),
          responses: errorResponses(postStore.length > 0),
        },
        new Set(api.resources.map((resource) => resource.name)),
      ),
    },
  };
  return document as OpenApiDocument;
}

// --- schemas -------------------------------------------------------------------------------

function ref(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

function commonSchemas(): Json {
  return {
    Link: {
      type: 'object',
      description: 'A hypermedia link (spec: "Link object").',
      properties: {
        href: { type: 'string', format: 'uri' },
        rel: { type: 'string' },
        method: {
          type: 'string',
          enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
        },
      },
      required: ['href', 'rel'],
    },
    ErrorDetail: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        target: { type: 'string' },
      },
      required: ['code', 'message'],
    },
    ErrorEnvelope: {
      type: 'object',
      description: 'The one error body (spec: "Error body").',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string' },
            message: { type: 'string' },
            target: { type: 'string' },
            details: { type: 'array', items: ref('ErrorDetail') },
            innererror: { type: 'object' },
          },
          required: ['code', 'message'],
        },
      },
      required: ['error'],
    },
    JsonPatch: {
      type: 'array',
      description: 'A JSON Patch document (RFC 6902).',
      items: {
        type: 'object',
        properties: {
          op: { type: 'string', enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
          path: { type: 'string' },
          from: { type: 'string' },
          value: {},
        },
        required: ['op', 'path'],
      },
    },
  };
}

/**
 * The representation with read-only fields marked `readOnly` (OpenAPI: sent in answers, not
 * expected in requests) and deprecated fields and enum values marked.
 */
function markFields(resource: DescribedResource, schema: JsonSchema): Json {
  const properties = { ...((schema.properties as Json | undefined) ?? {}) };
  for (const name of Object.keys(properties)) {
    let property = { ...(properties[name] as Json) };
    if (resource.readOnly.includes(name)) property.readOnly = true;
    if (resource.deprecated[name] !== undefined) {
      property = {
        ...property,
        deprecated: true,
        description: `Deprecated: ${resource.deprecated[name]}`,
      };
    }
    const deprecatedValues = Object.keys(resource.deprecated)
      .filter((key) => key.startsWith(`${name}.`))
      .map((key) => `${key.slice(name.length + 1)} (${resource.deprecated[key]})`);
    if (deprecatedValues.length > 0) {
      property.description = `Deprecated values: ${deprecatedValues.join('; ')}.`;
    }
    if (name === 'links') property = { type: 'array', items: ref('Link'), readOnly: true };
    properties[name] = property;
  }
  return { ...schema, properties };
}

function resourceSchemas(resource: DescribedResource): Json {
  const schemas: Json = { [resource.name]: markFields(resource, resource.representation) };
  if (resource.create) schemas[`${resource.name}Create`] = resource.create;
  if (resource.list) {
    const summaryName =
      resource.list.summary === resource.representation ? resource.name : `${resource.name}Summary`;
    if (summaryName !== resource.name)
      schemas[summaryName] = markFields(resource, resource.list.summary);
    schemas[`${resource.name}Collection`] = collectionSchema(summaryName);
  } else if (resource.search) {
    schemas[`${resource.name}Collection`] = collectionSchema(resource.name);
  }
  if (resource.patch) schemas[`${resource.name}MergePatch`] = mergePatchSchema(resource);
  return schemas;
}

function collectionSchema(itemName: string): Json {
  return {
    type: 'object',
    description: 'A page of the collection (spec: "Collection envelope").',
    properties: {
      items: { type: 'array', items: ref(itemName) },
      total_items: {
        type: 'integer',
        minimum: 0,
        description: 'The items in the whole collection; the list operation says when it is sent.',
      },
      total_pages: {
        type: 'integer',
        minimum: 0,
        description: 'The pages at this page size; sent with `total_items`.',
      },
      links: { type: 'array', items: ref('Link') },
    },
    required: ['items', 'links'],
  };
}

/** RFC 7396: any writable field, none required; `null` removes an optional field. */
function mergePatchSchema(resource: DescribedResource): Json {
  const properties: Json = {};
  const source = (resource.representation.properties as Json | undefined) ?? {};
  for (const [name, schema] of Object.entries(source)) {
    if (!resource.readOnly.includes(name)) properties[name] = schema;
  }
  return { type: 'object', description: 'A JSON merge patch (RFC 7396).', properties };
}

// --- parameters and headers ----------------------------------------------------------------

function idParameter(resource: DescribedResource): string {
  return `${snake(resource.name)}_id`;
}

function pathParameter(name: string): Json {
  return { name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } };
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)].map((m) => pathParameter(m[1] as string));
}

function parameterRef(name: string): Json {
  return { $ref: `#/components/parameters/${name}` };
}

function commonParameters(
  used: { tokenPaging: boolean; totalsOnRequest: boolean },
  maxIdLength: number,
): Json {
  const header = (name: string, description: string, schema: Json = { type: 'string' }) => ({
    name,
    in: 'header',
    description,
    schema,
  });
  const query = (name: string, description: string, schema: Json) => ({
    name,
    in: 'query',
    description,
    schema,
  });
  return {
    page: query(
      'page',
      `Page number, from 1 (page convention); \`(page − 1) × page_size\` must not pass ${Number.MAX_SAFE_INTEGER} (2^53 − 1).`,
      { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 },
    ),
    page_size: query('page_size', 'Items per page (page convention).', {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 10,
    }),
    limit: query('limit', 'Items per page (offset convention).', {
      type: 'integer',
      minimum: 1,
      maximum: 100,
    }),
    offset: query('offset', 'Items to skip (offset convention).', {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
    }),
    ...(used.totalsOnRequest
      ? {
          total_required: query('total_required', 'Include `total_items` and `total_pages`.', {
            type: 'boolean',
            default: false,
          }),
        }
      : {}),
    sort_order: query('sort_order', 'Sort direction.', { type: 'string', enum: ['asc', 'desc'] }),
    start_time: query('start_time', 'Only items created at or after this time.', {
      type: 'string',
      format: 'date-time',
    }),
    end_time: query('end_time', 'Only items created before this time.', {
      type: 'string',
      format: 'date-time',
    }),
    Prefer: header('Prefer', '`return=minimal` or `return=representation` (RFC 7240).'),
    IfMatch: header(
      'If-Match',
      `Entity tags the resource must match (RFC 9110 §13.1.1), or \`*\`: at most ${MAX_ENTITY_TAGS} entity tags; more, or a value that is not a list of quoted tags, is a 400 naming the header.`,
    ),
    IfNoneMatch: header(
      'If-None-Match',
      `Entity tags the resource must not match (RFC 9110 §13.1.2), or \`*\`: at most ${MAX_ENTITY_TAGS} entity tags; more, or a value that is not a list of quoted tags, is a 400 naming the header.`,
    ),
    ServiceRequestId: header(
      'Service-Request-Id',
      `Makes the POST idempotent: a repeat with the same id and body replays the first answer. 1 to ${maxIdLength} letters, digits and \`-._~:+=/@\` (UUIDs, ULIDs, base64); the value may also be sent as a quoted Structured Field string (\`"…"\`). Any other value is a 400 naming the header.`,
      // The quoted form too, as the middleware reads it: a validator fed this document (a
      // gateway, a generated client) would otherwise refuse what the service takes. One
      // `maxLength` for both forms (a bare id's bound), so a quoted id may hold 2 fewer.
      {
        type: 'string',
        minLength: 1,
        maxLength: maxIdLength,
        pattern: `^(?:${SERVICE_REQUEST_ID_CHARS}+|"${SERVICE_REQUEST_ID_CHARS}+")$`,
      },
    ),
    ...(used.tokenPaging ? { page_token: pageToken() } : {}),
  };
}

/**
 * The components the paths refer to, and those the kept ones refer to, until none is added;
 * the schemas named in `keep` whatever refers to them.
 */
function referencedComponents(
  paths: Json,
  components: Record<string, Json>,
  keep: ReadonlySet<string>,
): Record<string, Json> {
  const kept: Record<string, Json> = {};
  const pending: [string, string, unknown][] = [];
  for (const [section, entries] of Object.entries(components)) {
    kept[section] = {};
    for (const [name, value] of Object.entries(entries)) pending.push([section, name, value]);
  }
  let text = JSON.stringify(paths);
  const take = (section: string, name: string, value: unknown) => {
    (kept[section] as Json)[name] = value;
    text += JSON.stringify(value);
  };
  for (const [section, name, value] of pending) {
    if (section === 'schemas' && keep.has(name)) take(section, name, value);
  }
  let added = true;
  while (added) {
    added = false;
    for (const [section, name, value] of pending) {
      if (Object.hasOwn(kept[section] as Json, name)) continue;
      if (text.includes(`"#/components/${section}/${name}"`)) {
        take(section, name, value);
        added = true;
      }
    }
  }
  // In the order they were made, whichever referred to them first.
  for (const [section, entries] of Object.entries(components)) {
    kept[section] = Object.fromEntries(
      Object.keys(entries)
        .filter((name) => Object.hasOwn(kept[section] as Json, name))
        .map((name) => [name, (entries as Json)[name]]),
    );
  }
  return kept;
}

/**
 * `page_token` as collection-pagination's `continuation` reads it: opaque, signed, bound to the
 * collection, sort and filters it was issued for, and never combined with `page` or `offset`.
 */
function pageToken(): Json {
  return {
    name: 'page_token',
    in: 'query',
    description: [
      'A continuation token: where the next page starts. Take it from the `next` link, which carries every other parameter it needs; it is opaque and signed, so do not build or change one.',
      'A request without `page` or `offset` is paged by token: its `next` link carries one, and its pages link `self`, `first` and `next` only.',
      'Refused with 400 `INVALID_REQUEST`, `target` `page_token`: a forged, altered or truncated token, or one signed with a secret the service no longer has (`innererror.code` `INVALID_PAGE_TOKEN`: start again from the first page); a token sent with another sort, filter or collection than it was issued for (`PAGE_TOKEN_MISMATCH`); a token together with `page` or `offset` (`CONFLICTING_PARAMETERS`); one over ' +
        `${MAX_PAGE_TOKEN_LENGTH} characters (\`PARAMETER_TOO_LONG\`).`,
    ].join(' '),
    schema: { type: 'string', minLength: 1, maxLength: MAX_PAGE_TOKEN_LENGTH },
  };
}

function commonHeaders(retryAfter: boolean): Json {
  return {
    ETag: {
      description: 'The strong entity tag of the representation.',
      schema: { type: 'string' },
    },
    Location: {
      description: 'The address of the created resource.',
      schema: { type: 'string', format: 'uri' },
    },
    PreferenceApplied: {
      description: 'The `Prefer` preference honoured.',
      schema: { type: 'string' },
    },
    ErrorCode: { description: 'The error code of the envelope.', schema: { type: 'string' } },
    ...(retryAfter
      ? {
          RetryAfter: {
            description: 'Seconds, or the date, after which to retry.',
            schema: { type: 'string' },
          },
        }
      : {}),
  };
}

function errorResponses(unavailable: boolean): Json {
  const responses: Json = {};
  for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
    if (status === '503' && !unavailable) continue;
    responses[`Error${status}`] = {
      description,
      headers: {
        'Error-Code': { $ref: '#/components/headers/ErrorCode' },
        ...(status === '503' ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      content: { 'application/json': { schema: ref('ErrorEnvelope') } },
    };
  }
  return responses;
}

function withErrors(responses: Json, statuses: readonly ErrorStatus[]): Json {
  const all = [...new Set([...ALWAYS, ...statuses])].sort((a, b) => a - b);
  const result: Json = { ...responses };
  for (const status of all)
    result[String(status)] = { $ref: `#/components/responses/Error${status}` };
  return result;
}

function json(schema: Json, example?: unknown): Json {
  return { 'application/json': { schema, ...(example === undefined ? {} : { example }) } };
}

// --- operations ----------------------------------------------------------------------------

interface ListOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly list: Required<SubCollectionListDescription> & { readonly summary: JsonSchema };
  /** The collection envelope's component name. */
  readonly collection: string;
  /** A sub-collection answers 404 when its resource does not exist. */
  readonly notFound?: boolean;
  /** The statuses of an unreachable store. */
  readonly store: readonly ErrorStatus[];
}

function pagingParameters(
  paging: readonly PagingKind[],
  totals: TotalsMode,
  maxOffset: number = Number.MAX_SAFE_INTEGER,
): Json[] {
  const parameters: Json[] = [];
  // A list that serves less than collection-pagination reads states its own bound.
  const bounded = maxOffset < Number.MAX_SAFE_INTEGER;
  if (paging.includes('page')) {
    parameters.push(bounded ? boundedPage(maxOffset) : parameterRef('page'));
    parameters.push(parameterRef('page_size'));
  }
  if (paging.includes('offset')) {
    parameters.push(
      parameterRef('limit'),
      bounded ? boundedOffset(maxOffset) : parameterRef('offset'),
    );
  }
  if (paging.includes('token')) parameters.push(parameterRef('page_token'));
  if (totals === 'on-request') parameters.push(parameterRef('total_required'));
  return parameters;
}

/** `page` on a list whose store serves offsets up to `maxOffset` only. */
function boundedPage(maxOffset: number): Json {
  return {
    name: 'page',
    in: 'query',
    description: `Page number, from 1 (page convention). This list serves its first ${maxOffset} items by position: \`(page − 1) × page_size\` must not pass ${maxOffset} (a 400 naming \`page\`); follow the \`next\` links to page deeper.`,
    schema: { type: 'integer', minimum: 1, maximum: maxOffset + 1, default: 1 },
  };
}

/** `offset` on a list whose store serves offsets up to `maxOffset` only. */
function boundedOffset(maxOffset: number): Json {
  return {
    name: 'offset',
    in: 'query',
    description: `Items to skip (offset convention), at most ${maxOffset} (a 400 naming \`offset\` beyond); follow the \`next\` links to page deeper.`,
    schema: { type: 'integer', minimum: 0, maximum: maxOffset },
  };
}

/** The 200 of a collection says when its totals come: one schema serves both kinds of list. */
function totalsSentence(totals: TotalsMode): string {
  return totals === 'always'
    ? ' `total_items` and `total_pages` are always sent.'
    : ' `total_items` and `total_pages` are sent with `total_required=true`.';
}

function listOperation({
  operationId,
  summary,
  tag,
  list,
  collection,
  notFound,
  store,
}: ListOperation): Json {
  const parameters = [
    ...pagingParameters(list.paging, list.totals, list.maxOffset),
    parameterRef('IfNoneMatch'),
    parameterRef('IfMatch'),
  ];
  if (list.sortable.length > 0) {
    parameters.push(
      {
        name: 'sort_by',
        in: 'query',
        description: 'The property to sort by.',
        schema: { type: 'string', enum: list.sortable },
      },
      parameterRef('sort_order'),
    );
  }
  if (list.timeSelectable.length > 0)
    parameters.push(parameterRef('start_time'), parameterRef('end_time'));
  for (const field of list.timeSelectable) {
    for (const suffix of ['after', 'before'] as const) {
      parameters.push({
        name: `${field}_${suffix}`,
        in: 'query',
        description: `Only items whose \`${field}\` is ${suffix} this time.`,
        schema: { type: 'string', format: 'date-time' },
      });
    }
  }
  const closed = enumFilterValues(list.summary, list.filterable);
  for (const field of list.filterable) {
    const values = closed[field];
    parameters.push(
      values === undefined
        ? {
            name: field,
            in: 'query',
            description: `Only items whose \`${field}\` equals this value.`,
            schema: { type: 'string', minLength: 1, maxLength: MAX_FILTER_LENGTH },
          }
        : {
            name: field,
            in: 'query',
            description: `Only items whose \`${field}\` is this value; a value \`${field}\` cannot take is a 400 naming the parameter.`,
            schema: { type: 'string', enum: [...values] },
          },
    );
  }
  return {
    operationId,
    summary,
    ...(list.paging.includes('token')
      ? {
          description:
            'Paged by continuation token unless the request names `page` or `offset`: the `next` link then carries `page_token`, and there is no `previous` or `last` link.',
        }
      : {}),
    tags: [tag],
    parameters,
    responses: withErrors(
      {
        200: {
          description: `A page of the collection; an empty page is not a 404.${totalsSentence(list.totals)}`,
          headers: { ETag: { $ref: '#/components/headers/ETag' } },
          content: json(ref(collection)),
        },
        304: { description: '`If-None-Match` matched: the client’s copy is current.' },
      },
      notFound ? [404, 412, ...store] : [412, ...store],
    ),
  };
}

/** `listCaptureRefunds`, `listWebhookEventTypes`: the resource, then the segment. */
export function subCollectionOperationId(
  resource: DescribedResource,
  sub: DescribedSubCollection,
): string {
  return `list${resource.name}${pascal(camel(sub.name))}`;
}

/** `store`: the statuses of a POST's stores (its resources' and the ids'). */
function searchOperation(resource: DescribedResource, store: readonly ErrorStatus[]): Json {
  const search = resource.search as DescribedSearch;
  return {
    operationId: `search${resource.name}`,
    summary: search.summary,
    description:
      'The criteria are the body; paging is in the query. The links of the answer repeat the POST (`method: "POST"`) with other paging.',
    tags: [resource.name],
    // Every POST is idempotent when it carries Service-Request-Id (the conventions' "Verbs and
    // idempotency"), a search too: a repeat replays the first page instead of searching again.
    parameters: [
      parameterRef('ServiceRequestId'),
      ...pagingParameters(search.paging, search.totals),
    ],
    requestBody: {
      required: true,
      content: json(ref(`${resource.name}SearchCriteria`), search.example),
    },
    responses: withErrors(
      {
        200: {
          description: `A page of the resources matching every criterion; an empty page is not a 404.${totalsSentence(search.totals)}`,
          content: json(ref(`${resource.name}Collection`)),
        },
      },
      [...WITH_BODY, ...IDEMPOTENT_POST, ...store],
    ),
  };
}

function createOperation(resource: DescribedResource, store: readonly ErrorStatus[]): Json {
  return {
    operationId: `create${resource.name}`,
    summary: `Create a ${words(resource.name)}`,
    tags: [resource.name],
    parameters: [parameterRef('ServiceRequestId'), parameterRef('Prefer')],
    requestBody: { required: true, content: json(ref(`${resource.name}Create`), resource.example) },
    responses: withErrors(
      { 201: createdResponse(ref(resource.name), resource.read ? resource : undefined) },
      [...WITH_BODY, ...IDEMPOTENT_POST, ...store],
    ),
  };
}

/** A 201 of the conventions: `Location`, the new `ETag`, the body unless `return=minimal`. */
function createdResponse(body: Json, readable: DescribedResource | undefined): Json {
  return {
    description:
      'Created; `Location` and the `self` link address it. Empty with `Prefer: return=minimal`.',
    headers: {
      Location: { $ref: '#/components/headers/Location' },
      ETag: { $ref: '#/components/headers/ETag' },
      'Preference-Applied': { $ref: '#/components/headers/PreferenceApplied' },
    },
    content: json(body),
    ...(readable ? { links: { read: readLink(readable) } } : {}),
  };
}

function readLink(resource: DescribedResource): Json {
  return {
    operationId: `get${resource.name}`,
    parameters: { [idParameter(resource)]: '$response.body#/id' },
    description: 'Reads the created resource back.',
  };
}

function readOperation(resource: DescribedResource, store: readonly ErrorStatus[]): Json {
  return {
    operationId: `get${resource.name}`,
    summary: `Read a ${words(resource.name)}`,
    tags: [resource.name],
    parameters: [parameterRef('IfNoneMatch'), parameterRef('IfMatch')],
    responses: withErrors(
      {
        200: {
          description: 'The resource.',
          headers: { ETag: { $ref: '#/components/headers/ETag' } },
          content: json(ref(resource.name)),
        },
        304: { description: '`If-None-Match` matched: the client’s copy is current.' },
      },
      [404, 412, ...store],
    ),
  };
}

function writeResponses(resource: DescribedResource, created: boolean): Json {
  return {
    200: {
      description: 'Updated; the resource, with `Prefer: return=representation`.',
      headers: {
        ETag: { $ref: '#/components/headers/ETag' },
        'Preference-Applied': { $ref: '#/components/headers/PreferenceApplied' },
      },
      content: json(ref(resource.name)),
    },
    ...(created
      ? {
          201: {
            description: 'Created with the client’s id.',
            headers: {
              Location: { $ref: '#/components/headers/Location' },
              ETag: { $ref: '#/components/headers/ETag' },
              'Preference-Applied': { $ref: '#/components/headers/PreferenceApplied' },
            },
            content: json(ref(resource.name)),
          },
        }
      : {}),
    204: {
      description: 'Updated.',
      headers: {
        ETag: { $ref: '#/components/headers/ETag' },
        'Preference-Applied': { $ref: '#/components/headers/PreferenceApplied' },
      },
    },
  };
}

function replaceOperation(resource: DescribedResource, store: readonly ErrorStatus[]): Json {
  const upsert = resource.replace !== false && resource.replace.upsert;
  return {
    operationId: `replace${resource.name}`,
    summary: `Replace a ${words(resource.name)}${upsert ? ', or create it with this id' : ''}`,
    description:
      'Properties the client does not send are cleared; read-only fields may be left out, and changing one is a 400.',
    tags: [resource.name],
    parameters: [parameterRef('IfMatch'), parameterRef('IfNoneMatch'), parameterRef('Prefer')],
    requestBody: { required: true, content: json(ref(resource.name)) },
    responses: withErrors(writeResponses(resource, upsert), [...CONDITIONAL_WRITE, ...store]),
  };
}

function patchOperation(resource: DescribedResource, store: readonly ErrorStatus[]): Json {
  const upsert = resource.patch !== false && resource.patch.upsert;
  return {
    operationId: `patch${resource.name}`,
    summary: `Update a ${words(resource.name)} in part${upsert ? ', or create it with this id' : ''}`,
    description:
      'A JSON Patch (RFC 6902) or a merge patch (RFC 7396); read-only fields cannot change. A patch that leaves the resource equal changes neither `update_time` nor the ETag.',
    tags: [resource.name],
    parameters: [parameterRef('IfMatch'), parameterRef('IfNoneMatch'), parameterRef('Prefer')],
    requestBody: {
      required: true,
      content: {
        'application/json-patch+json': { schema: ref('JsonPatch') },
        'application/merge-patch+json': { schema: ref(`${resource.name}MergePatch`) },
      },
    },
    responses: withErrors(writeResponses(resource, upsert), [...CONDITIONAL_WRITE, ...store]),
  };
}

function deleteOperation(resource: DescribedResource, store: readonly ErrorStatus[]): Json {
  return {
    operationId: `delete${resource.name}`,
    summary: `Delete a ${words(resource.name)}`,
    description: 'Repeated deletes answer 204 too.',
    tags: [resource.name],
    parameters: [parameterRef('IfMatch')],
    responses: withErrors({ 204: { description: 'Deleted, or already gone.' } }, [412, ...store]),
  };
}

function actionOperation(
  resource: DescribedResource,
  action: DescribedResource['actions'][number],
  store: readonly ErrorStatus[],
): Json {
  return {
    operationId: `${camel(action.name)}${resource.name}`,
    summary: action.summary,
    tags: [resource.name],
    // An action is conditional like a PATCH: the preconditions hold against the resource's ETag.
    parameters: [
      parameterRef('IfMatch'),
      parameterRef('IfNoneMatch'),
      parameterRef('ServiceRequestId'),
      parameterRef('Prefer'),
    ],
    ...(action.body
      ? { requestBody: { required: false, content: json(action.body as Json, action.example) } }
      : {}),
    responses: withErrors(
      {
        200: {
          description:
            'The action changed the resource: its new state. Also the resource as it is, with `Prefer: return=representation`, when the action changed nothing.',
          headers: {
            ETag: { $ref: '#/components/headers/ETag' },
            'Preference-Applied': { $ref: '#/components/headers/PreferenceApplied' },
          },
          content: json(ref(resource.name)),
        },
        204: {
          description:
            'The action left the resource as it was, or changed it and `Prefer: return=minimal` asked for no body (the `ETag` is then the new one).',
          headers: {
            ETag: { $ref: '#/components/headers/ETag' },
            'Preference-Applied': { $ref: '#/components/headers/PreferenceApplied' },
          },
        },
      },
      [...WITH_BODY, ...IDEMPOTENT_POST, 404, 412, ...store],
    ),
  };
}

function complexOperation(
  api: ApiDescription,
  operation: DescribedOperation,
  schemas: Json,
  store: readonly ErrorStatus[],
): Json {
  const responseName = operation.responseName;
  const created =
    operation.creates === undefined
      ? undefined
      : api.resources.find((r) => r.name === operation.creates);
  if (!created) schemas[responseName] = operation.response;
  const body = ref(responseName);
  const parameters: Json[] = [];
  if (operation.query) {
    const required = requiredNames(operation.query);
    const properties = (operation.query.properties as Json | undefined) ?? {};
    // A computed resource's example is its query: each parameter shows its value.
    const example = (
      typeof operation.example === 'object' && operation.example !== null ? operation.example : {}
    ) as Json;
    for (const name of propertyNames(operation.query)) {
      parameters.push({
        name,
        in: 'query',
        required: required.includes(name),
        schema: properties[name],
        ...(example[name] === undefined ? {} : { example: example[name] }),
      });
    }
  }
  // A composite operation changes the resource in its path: conditional on its ETag, as an action.
  if (operation.kind === 'composite') {
    parameters.push(parameterRef('IfMatch'), parameterRef('IfNoneMatch'));
  }
  if (operation.method === 'POST') parameters.push(parameterRef('ServiceRequestId'));
  const creates = operation.kind !== 'computed' && operation.kind !== 'transient';
  if (creates) parameters.push(parameterRef('Prefer'));
  // A computed resource is read as any other: tagged, and conditional on its ETag.
  if (operation.kind === 'computed')
    parameters.push(parameterRef('IfNoneMatch'), parameterRef('IfMatch'));
  const success = creates
    ? { 201: createdResponse(body, created?.read ? created : undefined) }
    : operation.kind === 'computed'
      ? {
          200: {
            description: 'The computed resource.',
            headers: { ETag: { $ref: '#/components/headers/ETag' } },
            content: json(body),
          },
          304: { description: '`If-None-Match` matched: the client’s copy is current.' },
        }
      : { 200: { description: 'The result; nothing is stored.', content: json(body) } };
  const errors: ErrorStatus[] =
    operation.method === 'GET'
      ? [404, ...(operation.kind === 'computed' ? [412 as const] : []), ...store]
      : [
          ...WITH_BODY,
          ...IDEMPOTENT_POST,
          ...(operation.kind === 'composite' ? [404 as const, 412 as const] : []),
          ...store,
        ];
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: ['Operations'],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            // A composite operation whose body has no required field can be sent without one
            // (the spec's composite row: "Request: none needed"), as resource-operations takes it.
            required: operation.kind !== 'composite' || requiredNames(operation.body).length > 0,
            content: json(operation.body as Json, operation.example),
          },
        }
      : {}),
    responses: withErrors(success, errors),
  };
}

// --- names ---------------------------------------------------------------------------------

function snake(name: string): string {
  return name.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

function words(name: string): string {
  return snake(name).replace(/_/g, ' ');
}

function camel(segment: string): string {
  return segment.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function pascal(identifier: string): string {
  return identifier.charAt(0).toUpperCase() + identifier.slice(1);
}
