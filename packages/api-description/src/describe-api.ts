/**
 * @module `describeApi`: checks a description once and resolves every schema to JSON Schema, so
 * the generators never see a half-valid description.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  closestName,
  describeValue,
  invalidOption,
  OPTION_ERROR_CODES,
  oneOfOption,
  optionError,
  positiveIntegerOption,
} from '@resourceful/option-checks';
import { frozenCopy } from './frozen-copy.js';
import { propertyNames, toJsonSchema } from './json-schema.js';
import type {
  ApiDescription,
  ApiDescriptionInit,
  DescribedOperation,
  DescribedResource,
  DescribedSearch,
  DescribedSubCollection,
  JsonSchema,
  OperationDescription,
  PagingKind,
  ResourceDescription,
  ResourceStorage,
  SearchDescription,
  SubCollectionDescription,
  SubCollectionListDescription,
  TotalsMode,
} from './types.js';

/** Fields every resource has and no client sets (spec: "Common envelope fields"). */
export const COMMON_READ_ONLY_FIELDS = ['id', 'create_time', 'update_time', 'links'] as const;

const API_OPTIONS = [
  'title',
  'version',
  'pathVersion',
  'summary',
  'resources',
  'operations',
  'storage',
  'idempotencyStorage',
  'maxServiceRequestIdLength',
];
/** service-request-idempotency's default `maxIdLength` (its `DEFAULT_MAX_ID_LENGTH`). */
const DEFAULT_MAX_SERVICE_REQUEST_ID_LENGTH = 255;
const STORAGE: readonly ResourceStorage[] = ['external', 'in-process'];
const TOTALS: readonly TotalsMode[] = ['always', 'on-request'];
const LIST_PAGING: readonly PagingKind[] = ['page', 'offset', 'token'];
const SEARCH_PAGING: readonly ('page' | 'offset')[] = ['page', 'offset'];
const RESOURCE_OPTIONS = [
  'name',
  'path',
  'summary',
  'representation',
  'operations',
  'readOnly',
  'deprecated',
  'actions',
  'subCollections',
  'search',
  'example',
];
const OPERATIONS_OPTIONS = ['list', 'create', 'read', 'replace', 'patch', 'delete'];

const OPERATION_OPTIONS = [
  'operationId',
  'method',
  'path',
  'summary',
  'kind',
  'body',
  'query',
  'response',
  'creates',
  'responseName',
  'example',
];
const ACTION_OPTIONS = ['name', 'summary', 'body', 'example'];
const SUB_COLLECTION_OPTIONS = ['name', 'summary', 'items', 'list'];
const SUB_LIST_OPTIONS = [
  'sortable',
  'filterable',
  'timeSelectable',
  'paging',
  'totals',
  'maxOffset',
];
/** A resource's list takes a sub-collection's options and the summary of its items. */
const LIST_OPTIONS = [...SUB_LIST_OPTIONS, 'summary'];
const SEARCH_OPTIONS = ['path', 'summary', 'criteria', 'example', 'paging', 'totals'];

const TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/;
const PATH = /^(\/[a-z0-9][a-z0-9-]*)+$/;
const OPERATION_PATH = /^(\/([a-z0-9][a-z0-9-]*|\{[a-z_][a-z0-9_]*\}))+$/;
const SEGMENT = /^[a-z][a-z0-9-]*$/;
const OPERATION_ID = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Checks a description and resolves its schemas. Throws a TypeError naming the first problem,
 * so a wrong description fails when the service starts, not when a client reads the document.
 */
export function describeApi(init: ApiDescriptionInit): ApiDescription {
  assertOptionsObject('describeApi', init);
  assertKnownOptions('describeApi', init, API_OPTIONS);
  requireString('title', init.title, 'title');
  requireString('version', init.version, 'version');
  if (init.summary !== undefined) requireString('summary', init.summary, 'summary');
  if (typeof init.pathVersion !== 'string' || !/^v\d+(\.\d+)?$/.test(init.pathVersion)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      'pathVersion must look like "v1" or "v1.2".',
      'pathVersion',
    );
  }
  const storage = oneOfOption('describeApi', 'storage', init.storage, STORAGE, 'external');
  const idempotencyStorage = oneOfOption(
    'describeApi',
    'idempotencyStorage',
    init.idempotencyStorage,
    STORAGE,
    'external',
  );
  const maxServiceRequestIdLength = positiveIntegerOption(
    'describeApi',
    'maxServiceRequestIdLength',
    init.maxServiceRequestIdLength,
    DEFAULT_MAX_SERVICE_REQUEST_ID_LENGTH,
  );
  if (!Array.isArray(init.resources)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      'resources must be an array of resource descriptions.',
      'resources',
    );
  }
  const resources = init.resources.map(describeResource);
  const operations = arrayOption('operations', init.operations, 'operation descriptions').map(
    describeOperation,
  );
  assertUnique(
    'resource name',
    resources.map((r, i) => [r.name, `resources[${i}].name`]),
  );
  assertUnique(
    'resource path',
    resources.map((r, i) => [r.path, `resources[${i}].path`]),
  );
  assertUnique(
    'operationId',
    operations.map((o, i) => [o.operationId, `operations[${i}].operationId`]),
  );
  const names = new Set(resources.map((r) => r.name));
  const linked = resources.map((resource, index) =>
    linkSubCollections(resource, `resources[${index}]`, resources),
  );
  assertUnique('path', [
    ...linked.flatMap((r, i): Named[] =>
      r.search ? [[r.search.path, `resources[${i}].search.path`]] : [],
    ),
    ...resources.map((r, i): Named => [r.path, `resources[${i}].path`]),
  ]);
  const linkedByName = new Map(linked.map((resource) => [resource.name, resource]));
  assertUnique('type name', [
    ...DOCUMENT_SCHEMAS.map((name): Named => [name, `the document's own "${name}" schema`]),
    ...linked.map((r, i): Named => [r.name, `resources[${i}].name`]),
    ...linked.flatMap((resource, index) => derivedSchemaNames(resource, index, linkedByName)),
    ...namedItemTypes(linked).map(([name, option]): Named => [`${name}Collection`, option]),
    ...operations.flatMap((o, i): Named[] =>
      o.creates === undefined
        ? [
            [
              o.responseName,
              // Unnamed, the response type is named after the operationId.
              `operations[${i}].${init.operations?.[i]?.responseName === undefined ? 'operationId' : 'responseName'}`,
            ],
          ]
        : [],
    ),
    ...namedItemTypes(linked),
  ]);
  for (const [index, operation] of operations.entries()) {
    if (operation.creates !== undefined && !names.has(operation.creates)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `operation "${operation.operationId}" creates "${operation.creates}", which is not a described resource.`,
        `operations[${index}].creates`,
      );
    }
  }
  // The schema sources stay the caller's objects (GraphQL validates with them); all else is a
  // frozen copy, so nothing checked here can change afterwards.
  const sources = new Set<object>();
  for (const source of [
    ...linked.flatMap((r) => [
      r.createSource,
      r.search?.criteriaSource,
      ...r.actions.map((a) => a.bodySource),
    ]),
    ...operations.flatMap((o) => [o.bodySource, o.querySource]),
  ]) {
    if (typeof source === 'object' && source !== null) sources.add(source);
  }
  return Object.freeze(
    Object.defineProperty(
      {
        title: init.title,
        version: init.version,
        pathVersion: init.pathVersion,
        summary: init.summary,
        storage,
        idempotencyStorage,
        maxServiceRequestIdLength,
        resources: frozenCopy(linked, sources),
        operations: frozenCopy(
          operations.map((operation) =>
            operation.creates === undefined
              ? operation
              : { ...operation, responseName: operation.creates },
          ),
          sources,
        ),
      },
      // Not enumerable: a copy made with spread is no checked description.
      DESCRIPTION_BRAND,
      { value: true },
    ),
  );
}

/**
 * Stamped on every description `describeApi` returns; registered (`Symbol.for`) so that a
 * description from another copy or build (ESM or CommonJS) of this package is recognised.
 */
const DESCRIPTION_BRAND = Symbol.for('@resourceful/api-description.ApiDescription');

/**
 * True for a description `describeApi` returned, from any copy or build of this package: the
 * generators (`openApiDocument`, `graphqlSchema`) take nothing else, since only `describeApi`
 * checks that every field is there and of its type. A copy (`{ ...api }`) or an object inheriting
 * from one (`Object.create(api)`) is not one.
 */
export function isApiDescription(value: unknown): value is ApiDescription {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getOwnPropertyDescriptor(value, DESCRIPTION_BRAND)?.value === true
  );
}

/**
 * The items of an array option, `[]` when it is absent (`ERR_RESOURCEFUL_INVALID_OPTION` for
 * anything else).
 */
function arrayOption<T>(
  option: string,
  value: readonly T[] | undefined,
  items: string,
): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) invalidOption('describeApi', option, `an array of ${items}`, value);
  return value;
}

/**
 * A nested part of the description (a resource, its list, an action …): a plain object naming
 * only `known` fields. Errors name it by its path from the description, `resources[0].actions[1]`,
 * and an unknown field by its own (`resources[0].actions[1].bdy`, "Did you mean …body").
 */
function describedPart(
  option: string,
  value: unknown,
  known: readonly string[],
): asserts value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidOption('describeApi', option, 'an object', value);
  }
  assertKnownOptions('describeApi', value, known, option);
}

/** An on/off operation (`read`, `delete`): `true` or `false`; absent is off. */
function switchOption(option: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') invalidOption('describeApi', option, 'true or false', value);
  return value;
}

function describeResource(resource: ResourceDescription, index: number): DescribedResource {
  const where = `resources[${index}]`;
  describedPart(where, resource, RESOURCE_OPTIONS);
  if (typeof resource.name !== 'string' || !TYPE_NAME.test(resource.name)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where}.name must be a PascalCase type name.`,
      `${where}.name`,
    );
  }
  const label = `resource "${resource.name}"`;
  if (typeof resource.path !== 'string' || !PATH.test(resource.path)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} path must be lower-case segments like "/vault/credit-cards".`,
      `${where}.path`,
    );
  }
  requireString(`${label} summary`, resource.summary, `${where}.summary`);
  const representation = toJsonSchema(
    resource.representation,
    'output',
    `${label} representation`,
    `${where}.representation`,
  );
  const fields = propertyNames(representation);
  for (const common of COMMON_READ_ONLY_FIELDS) {
    if (!fields.includes(common)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${label} representation lacks "${common}" (every resource has id, create_time, update_time and links).`,
        `${where}.representation`,
      );
    }
  }
  const ops = resource.operations;
  describedPart(`${where}.operations`, ops, OPERATIONS_OPTIONS);
  let list: DescribedResource['list'];
  if (ops.list !== undefined) {
    describedPart(`${where}.operations.list`, ops.list, LIST_OPTIONS);
    const summary =
      ops.list.summary === undefined
        ? representation
        : toJsonSchema(
            ops.list.summary,
            'output',
            `${label} list summary`,
            `${where}.operations.list.summary`,
          );
    const listed = propertyNames(summary);
    const listPath = `${where}.operations.list`;
    const { sortable, filterable, timeSelectable } = listFields(
      `${label} list`,
      ops.list,
      listed,
      listPath,
    );
    const paging = pagingKinds(
      `${label} list.paging`,
      ops.list.paging,
      LIST_PAGING,
      `${listPath}.paging`,
    );
    const totals = totalsMode(`${listPath}.totals`, ops.list.totals);
    const maxOffset = offsetBound(
      `${label} list.maxOffset`,
      ops.list.maxOffset,
      `${listPath}.maxOffset`,
    );
    list = { sortable, filterable, timeSelectable, paging, totals, maxOffset, summary };
  }
  const readOnly = [
    ...COMMON_READ_ONLY_FIELDS,
    ...fieldList(`${label} readOnly`, resource.readOnly, fields, `${where}.readOnly`).filter(
      (name) => !(COMMON_READ_ONLY_FIELDS as readonly string[]).includes(name),
    ),
  ];
  if (
    resource.deprecated !== undefined &&
    (typeof resource.deprecated !== 'object' ||
      resource.deprecated === null ||
      Array.isArray(resource.deprecated))
  ) {
    invalidOption(
      'describeApi',
      `${where}.deprecated`,
      'an object of reasons by field ({ "field": "reason" })',
      resource.deprecated,
    );
  }
  const deprecated = { ...resource.deprecated };
  for (const [key, reason] of Object.entries(deprecated)) {
    const field = key.split('.')[0] ?? key;
    if (!fields.includes(field)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${label} deprecates "${key}", but has no field "${field}".`,
        `${where}.deprecated.${key}`,
      );
    }
    requireString(`${label} deprecation reason of "${key}"`, reason, `${where}.deprecated.${key}`);
  }
  const actions = arrayOption(`${where}.actions`, resource.actions, 'action descriptions').map(
    (action, i) => {
      describedPart(`${where}.actions[${i}]`, action, ACTION_OPTIONS);
      if (typeof action.name !== 'string' || !SEGMENT.test(action.name)) {
        throw optionError(
          OPTION_ERROR_CODES.invalidOption,
          'describeApi',
          `${label} actions[${i}].name must be a path segment.`,
          `${where}.actions[${i}].name`,
        );
      }
      requireString(
        `${label} action "${action.name}" summary`,
        action.summary,
        `${where}.actions[${i}].summary`,
      );
      return {
        name: action.name,
        summary: action.summary,
        body:
          action.body === undefined
            ? undefined
            : toJsonSchema(
                action.body,
                'input',
                `${label} action "${action.name}" body`,
                `${where}.actions[${i}].body`,
              ),
        bodySource: action.body,
        example: action.example,
      };
    },
  );
  const subCollections = arrayOption(
    `${where}.subCollections`,
    resource.subCollections,
    'sub-collection descriptions',
  ).map((sub, i) => describeSubCollection(label, `${where}.subCollections[${i}]`, sub, i));
  assertUnique(`${label} path segment`, [
    ...actions.map((a, i): Named => [a.name, `${where}.actions[${i}].name`]),
    ...subCollections.map((s, i): Named => [s.name, `${where}.subCollections[${i}].name`]),
  ]);
  const search =
    resource.search === undefined
      ? undefined
      : describeSearch(label, `${where}.search`, resource.search);
  const replace = upsertable(`${where}.operations.replace`, ops.replace);
  const patch = upsertable(`${where}.operations.patch`, ops.patch);
  return Object.freeze({
    name: resource.name,
    path: resource.path,
    summary: resource.summary,
    representation,
    create:
      ops.create === undefined
        ? undefined
        : toJsonSchema(ops.create, 'input', `${label} create`, `${where}.operations.create`),
    createSource: ops.create,
    list,
    read: switchOption(`${where}.operations.read`, ops.read),
    replace,
    patch,
    delete: switchOption(`${where}.operations.delete`, ops.delete),
    readOnly,
    deprecated,
    actions,
    subCollections,
    search,
    example: resource.example,
  });
}

/** Items named by a resource name are resolved once every resource is described. */
type PendingSubCollection = Omit<DescribedSubCollection, 'items'> & {
  readonly items: DescribedSubCollection['items'] | { readonly resourceName: string };
};

function describeSubCollection(
  label: string,
  path: string,
  sub: SubCollectionDescription,
  index: number,
): DescribedSubCollection {
  const where = `${label} subCollections[${index}]`;
  describedPart(path, sub, SUB_COLLECTION_OPTIONS);
  if (typeof sub.name !== 'string' || !SEGMENT.test(sub.name)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where}.name must be a path segment like "refunds".`,
      `${path}.name`,
    );
  }
  const subLabel = `${label} sub-collection "${sub.name}"`;
  requireString(`${subLabel} summary`, sub.summary, `${path}.summary`);
  let items: PendingSubCollection['items'];
  if (typeof sub.items === 'string') {
    items = { resourceName: sub.items };
  } else {
    describedPart(`${path}.items`, sub.items, ['name', 'schema']);
    if (typeof sub.items.name !== 'string' || !TYPE_NAME.test(sub.items.name)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${subLabel} items must name a described resource, or be { name, schema } with a PascalCase name.`,
        `${path}.items`,
      );
    }
    const schema = toJsonSchema(
      sub.items.schema,
      'output',
      `${subLabel} items`,
      `${path}.items.schema`,
    );
    // Items are listed, sorted and filtered by their fields: an object with properties.
    if (schema.type !== 'object' || propertyNames(schema).length === 0) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${subLabel} items schema must be an object schema with properties.`,
        `${path}.items.schema`,
      );
    }
    items = { name: sub.items.name, schema, resource: false };
  }
  const list = sub.list ?? {};
  describedPart(`${path}.list`, list, SUB_LIST_OPTIONS);
  // Field lists are checked against the items once they are known (linkSubCollections).
  return {
    name: sub.name,
    summary: sub.summary,
    items,
    list: listOptions(subLabel, list, `${path}.list`),
  } as PendingSubCollection as DescribedSubCollection;
}

function listOptions(
  label: string,
  list: SubCollectionListDescription,
  path: string,
): Required<SubCollectionListDescription> {
  return {
    sortable: list.sortable ?? [],
    filterable: list.filterable ?? [],
    timeSelectable: list.timeSelectable ?? [],
    paging: pagingKinds(`${label} list.paging`, list.paging, LIST_PAGING, `${path}.paging`),
    totals: totalsMode(`${path}.totals`, list.totals),
    maxOffset: offsetBound(`${label} list.maxOffset`, list.maxOffset, `${path}.maxOffset`),
  };
}

/**
 * A list's deepest offset: collection-pagination reads an `offset` or a page's first item up to
 * 2^53 − 1 (a safe integer), and a store may serve less (collection-pagination-pg's maxOffset).
 */
function offsetBound(where: string, value: number | undefined, option: string): number {
  if (value === undefined) return Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}; got ${describeValue(value)}.`,
      option,
    );
  }
  return value;
}

function totalsMode(option: string, value: TotalsMode | undefined): TotalsMode {
  return oneOfOption('describeApi', option, value, TOTALS, 'always');
}

/**
 * A paging option: a non-empty list of known kinds, each once. `token` only beside `page` or
 * `offset`: a continuation token says where a page starts, not how long it is, and the first
 * page has none (collection-pagination's `continuation` pages keep `page_size` / `limit`).
 */
function pagingKinds<Kind extends PagingKind>(
  where: string,
  value: readonly Kind[] | undefined,
  allowed: readonly Kind[],
  option: string,
): Kind[] {
  if (value === undefined) return ['page', 'offset'] as Kind[];
  const expected = allowed.map((kind) => `"${kind}"`).join(', ');
  if (!Array.isArray(value) || value.length === 0) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} must be a non-empty array of ${expected}; got ${describeValue(value)}.`,
      option,
    );
  }
  for (const kind of value) {
    if (!(allowed as readonly unknown[]).includes(kind)) {
      const guess = typeof kind === 'string' ? closestName(kind, allowed) : undefined;
      const hint =
        (kind as unknown) === 'token'
          ? ' Searches are paged by page or offset only: their links repeat the POST with its criteria.'
          : guess === undefined
            ? ''
            : ` Did you mean "${guess}"?`;
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${where} names ${describeValue(kind)}; the kinds are ${expected}.${hint}`,
        option,
      );
    }
  }
  if (new Set(value).size !== value.length) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} names a paging kind twice.`,
      option,
    );
  }
  if (
    value.includes('token' as Kind) &&
    !value.includes('page' as Kind) &&
    !value.includes('offset' as Kind)
  ) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where}: "token" goes with "page" or "offset", whose page_size or limit sizes the pages a token continues.`,
      option,
    );
  }
  return [...value];
}

/** Resolves sub-collection items named by resource, and checks their field lists. */
function linkSubCollections(
  resource: DescribedResource,
  where: string,
  resources: readonly DescribedResource[],
): DescribedResource {
  const label = `resource "${resource.name}"`;
  const subCollections = resource.subCollections.map((described, i) => {
    const path = `${where}.subCollections[${i}]`;
    const sub = described as PendingSubCollection;
    const subLabel = `${label} sub-collection "${sub.name}"`;
    let items: DescribedSubCollection['items'];
    if ('resourceName' in sub.items) {
      const name = sub.items.resourceName;
      const target = resources.find((r) => r.name === name);
      if (!target) {
        throw optionError(
          OPTION_ERROR_CODES.invalidOption,
          'describeApi',
          `${subLabel} lists "${name}", which is not a described resource.`,
          `${path}.items`,
        );
      }
      items = { name: target.name, schema: target.representation, resource: true };
    } else {
      items = sub.items;
    }
    const fields = propertyNames(items.schema);
    const list = {
      ...listFields(`${subLabel} list`, sub.list, fields, `${path}.list`),
      paging: sub.list.paging,
      totals: sub.list.totals,
      maxOffset: sub.list.maxOffset,
    };
    return Object.freeze({ name: sub.name, summary: sub.summary, items, list });
  });
  return Object.freeze({ ...resource, subCollections: Object.freeze(subCollections) });
}

/**
 * The type names sub-collection items bring that are not resources (each named once, with the
 * option of its first naming).
 */
function namedItemTypes(resources: readonly DescribedResource[]): Named[] {
  const seen = new Map<string, { schema: JsonSchema; option: string }>();
  for (const [r, resource] of resources.entries()) {
    for (const [i, sub] of resource.subCollections.entries()) {
      if (sub.items.resource) continue;
      const option = `resources[${r}].subCollections[${i}].items.name`;
      const known = seen.get(sub.items.name);
      // One schema listed under two resources is one type; two schemas under one name are not.
      if (known === undefined) {
        seen.set(sub.items.name, { schema: sub.items.schema, option });
      } else if (JSON.stringify(known.schema) !== JSON.stringify(sub.items.schema)) {
        usedTwice('type name', sub.items.name, known.option, option);
      }
    }
  }
  return [...seen].map(([name, { option }]) => [name, option]);
}

function describeSearch(label: string, path: string, search: SearchDescription): DescribedSearch {
  describedPart(path, search, SEARCH_OPTIONS);
  if (typeof search.path !== 'string' || !PATH.test(search.path)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} search path must be lower-case segments like "/payments/search-billing-agreements".`,
      `${path}.path`,
    );
  }
  requireString(`${label} search summary`, search.summary, `${path}.summary`);
  const paging = pagingKinds(
    `${label} search.paging`,
    search.paging,
    SEARCH_PAGING,
    `${path}.paging`,
  );
  return Object.freeze({
    path: search.path,
    summary: search.summary,
    criteria: toJsonSchema(
      search.criteria,
      'input',
      `${label} search criteria`,
      `${path}.criteria`,
    ),
    criteriaSource: search.criteria,
    example: search.example,
    paging,
    totals: totalsMode(`${path}.totals`, search.totals),
  });
}

function describeOperation(operation: OperationDescription, index: number): DescribedOperation {
  const where = `operations[${index}]`;
  describedPart(where, operation, OPERATION_OPTIONS);
  if (typeof operation.operationId !== 'string' || !OPERATION_ID.test(operation.operationId)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where}.operationId must be an identifier.`,
      `${where}.operationId`,
    );
  }
  const label = `operation "${operation.operationId}"`;
  if (operation.method !== 'GET' && operation.method !== 'POST') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} method must be "GET" or "POST".`,
      `${where}.method`,
    );
  }
  if (typeof operation.path !== 'string' || !OPERATION_PATH.test(operation.path)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} path must look like "/risk/decisions".`,
      `${where}.path`,
    );
  }
  requireString(`${label} summary`, operation.summary, `${where}.summary`);
  if (
    operation.responseName !== undefined &&
    (typeof operation.responseName !== 'string' || !TYPE_NAME.test(operation.responseName))
  ) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} responseName must be a PascalCase type name.`,
      `${where}.responseName`,
    );
  }
  const kinds = ['resource-oriented', 'composite', 'transient', 'computed'];
  if (!kinds.includes(operation.kind)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} kind must be one of ${kinds.join(', ')}.`,
      `${where}.kind`,
    );
  }
  if ((operation.kind === 'computed') !== (operation.method === 'GET')) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label}: computed resources are read with GET, the other kinds are POSTed.`,
      `${where}.method`,
    );
  }
  if (
    (operation.kind === 'resource-oriented' || operation.kind === 'composite') &&
    operation.creates === undefined
  ) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} is ${operation.kind}: name the resource it creates in "creates".`,
      `${where}.creates`,
    );
  }
  return Object.freeze({
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    summary: operation.summary,
    kind: operation.kind,
    body:
      operation.body === undefined
        ? undefined
        : toJsonSchema(operation.body, 'input', `${label} body`, `${where}.body`),
    bodySource: operation.body,
    example: operation.example,
    query:
      operation.query === undefined
        ? undefined
        : toJsonSchema(operation.query, 'input', `${label} query`, `${where}.query`),
    querySource: operation.query,
    response: toJsonSchema(operation.response, 'output', `${label} response`, `${where}.response`),
    responseName: operation.responseName ?? `${pascal(operation.operationId)}Result`,
    creates: operation.creates,
  });
}

/** A list's field lists, each naming fields of its items (`fields`). */
function listFields(
  label: string,
  list: Pick<SubCollectionListDescription, 'sortable' | 'filterable' | 'timeSelectable'>,
  fields: string[],
  path: string,
): { sortable: string[]; filterable: string[]; timeSelectable: string[] } {
  const named = (kind: 'sortable' | 'filterable' | 'timeSelectable') =>
    fieldList(`${label}.${kind}`, list[kind], fields, `${path}.${kind}`);
  return {
    sortable: named('sortable'),
    filterable: named('filterable'),
    timeSelectable: named('timeSelectable'),
  };
}

function fieldList(
  where: string,
  value: readonly string[] | undefined,
  fields: string[],
  option: string,
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} must be an array of field names.`,
      option,
    );
  for (const name of value) {
    if (!fields.includes(name)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${where} names "${String(name)}", which is not a field.`,
        option,
      );
    }
  }
  return [...value];
}

function pascal(identifier: string): string {
  return identifier.charAt(0).toUpperCase() + identifier.slice(1);
}

function requireString(where: string, value: unknown, option: string): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} must be a non-empty string.`,
      option,
    );
  }
}

/** A name (or path) the description gives, and the option path that gives it. */
type Named = readonly [value: string, option: string];

/** The schemas every OpenAPI document has (openapi.ts's common schemas). */
const DOCUMENT_SCHEMAS = ['Link', 'ErrorDetail', 'ErrorEnvelope', 'JsonPatch'];

/**
 * The component schemas the OpenAPI document derives from a resource besides its own
 * (`CardCreate`, `CardSummary`, `CardCollection`, `CardMergePatch`, `CardSearchCriteria`), each
 * with the option it comes from: a resource named like one of them would overwrite it. A
 * sub-collection of a described resource whose list answers a summary needs a collection of the
 * whole representation under the `{Resource}Collection` the list's collection of summaries has.
 */
function derivedSchemaNames(
  resource: DescribedResource,
  index: number,
  byName: ReadonlyMap<string, DescribedResource>,
): Named[] {
  const at = `resources[${index}]`;
  const names: Named[] = [];
  if (resource.create) names.push([`${resource.name}Create`, `${at}.operations.create`]);
  if (resource.list) {
    if (resource.list.summary !== resource.representation) {
      names.push([`${resource.name}Summary`, `${at}.operations.list.summary`]);
    }
    names.push([`${resource.name}Collection`, `${at}.operations.list`]);
  } else if (resource.search) {
    names.push([`${resource.name}Collection`, `${at}.search`]);
  }
  if (resource.patch) names.push([`${resource.name}MergePatch`, `${at}.operations.patch`]);
  if (resource.search) names.push([`${resource.name}SearchCriteria`, `${at}.search.criteria`]);
  for (const [i, sub] of resource.subCollections.entries()) {
    const items = sub.items.resource ? byName.get(sub.items.name) : undefined;
    // Its items' resource lists summaries under the name this collection of whole ones needs.
    if (items?.list !== undefined && items.list.summary !== items.representation) {
      names.push([`${sub.items.name}Collection`, `${at}.subCollections[${i}].items`]);
    }
  }
  return names;
}

/** Throws the error of `value` given at `first` and again at `option` (the option at fault). */
function usedTwice(what: string, value: string, first: string, option: string): never {
  throw optionError(
    OPTION_ERROR_CODES.conflictingOptions,
    'describeApi',
    `${what} "${value}" is used twice: by ${first} and by ${option}.`,
    option,
  );
}

function assertUnique(what: string, values: readonly Named[]): void {
  const seen = new Map<string, string>();
  for (const [value, option] of values) {
    const first = seen.get(value);
    if (first !== undefined) usedTwice(what, value, first, option);
    seen.set(value, option);
  }
}

/** PUT and PATCH are off, on, or on with `{ upsert: true }`: creating with the client's id. */
function upsertable(
  option: string,
  operation: boolean | { readonly upsert: boolean } | undefined,
): false | { readonly upsert: boolean } {
  if (operation === undefined || operation === false) return false;
  if (operation === true) return { upsert: false };
  const expected = 'true, false or { upsert: true }';
  if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
    invalidOption('describeApi', option, expected, operation);
  }
  assertKnownOptions('describeApi', operation, ['upsert'], option);
  return { upsert: switchOption(`${option}.upsert`, operation.upsert) };
}
