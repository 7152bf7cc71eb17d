/**
 * @module `describeApi`: checks a description once and resolves every schema to JSON Schema, so
 * the generators never see a half-valid description.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import { propertyNames, toJsonSchema } from './json-schema.js';
import type {
  ApiDescription,
  ApiDescriptionInit,
  DescribedOperation,
  DescribedResource,
  OperationDescription,
  ResourceDescription,
} from './types.js';

/** Fields every resource has and no client sets (spec: "Common envelope fields"). */
export const COMMON_READ_ONLY_FIELDS = ['id', 'create_time', 'update_time', 'links'] as const;

const API_OPTIONS = ['title', 'version', 'pathVersion', 'summary', 'resources', 'operations'];
const RESOURCE_OPTIONS = [
  'name',
  'path',
  'summary',
  'representation',
  'operations',
  'readOnly',
  'deprecated',
  'actions',
  'example',
];
const OPERATIONS_OPTIONS = ['list', 'create', 'read', 'replace', 'patch', 'delete'];
const LIST_OPTIONS = ['sortable', 'filterable', 'timeSelectable', 'paging', 'summary'];
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
  'example',
];

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
  requireString('title', init.title);
  requireString('version', init.version);
  if (typeof init.pathVersion !== 'string' || !/^v\d+(\.\d+)?$/.test(init.pathVersion)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      'pathVersion must look like "v1" or "v1.2".',
    );
  }
  if (!Array.isArray(init.resources)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      'resources must be an array of resource descriptions.',
    );
  }
  const resources = init.resources.map(describeResource);
  const operations = (init.operations ?? []).map(describeOperation);
  assertUnique(
    'resource name',
    resources.map((r) => r.name),
  );
  assertUnique(
    'resource path',
    resources.map((r) => r.path),
  );
  assertUnique(
    'operationId',
    operations.map((o) => o.operationId),
  );
  const names = new Set(resources.map((r) => r.name));
  for (const operation of operations) {
    if (operation.creates !== undefined && !names.has(operation.creates)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `operation "${operation.operationId}" creates "${operation.creates}", which is not a described resource.`,
      );
    }
  }
  return Object.freeze({
    title: init.title,
    version: init.version,
    pathVersion: init.pathVersion,
    summary: init.summary,
    resources: Object.freeze(resources),
    operations: Object.freeze(operations),
  });
}

function describeResource(resource: ResourceDescription, index: number): DescribedResource {
  const where = `resources[${index}]`;
  assertOptionsObject(`describeApi: ${where}`, resource);
  assertKnownOptions(`describeApi: ${where}`, resource, RESOURCE_OPTIONS);
  if (typeof resource.name !== 'string' || !TYPE_NAME.test(resource.name)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where}.name must be a PascalCase type name.`,
    );
  }
  const label = `resource "${resource.name}"`;
  if (typeof resource.path !== 'string' || !PATH.test(resource.path)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} path must be lower-case segments like "/vault/credit-cards".`,
    );
  }
  requireString(`${label} summary`, resource.summary);
  const representation = toJsonSchema(resource.representation, 'output', `${label} representation`);
  const fields = propertyNames(representation);
  for (const common of COMMON_READ_ONLY_FIELDS) {
    if (!fields.includes(common)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${label} representation lacks "${common}" (every resource has id, create_time, update_time and links).`,
      );
    }
  }
  const ops = resource.operations;
  assertOptionsObject(`describeApi: ${label} operations`, ops);
  assertKnownOptions(`describeApi: ${label} operations`, ops, OPERATIONS_OPTIONS);
  let list: DescribedResource['list'];
  if (ops.list !== undefined) {
    assertOptionsObject(`describeApi: ${label} list`, ops.list);
    assertKnownOptions(`describeApi: ${label} list`, ops.list, LIST_OPTIONS);
    const summary =
      ops.list.summary === undefined
        ? representation
        : toJsonSchema(ops.list.summary, 'output', `${label} list summary`);
    const listed = propertyNames(summary);
    const sortable = fieldList(`${label} list.sortable`, ops.list.sortable, listed);
    const filterable = fieldList(`${label} list.filterable`, ops.list.filterable, listed);
    const timeSelectable = fieldList(
      `${label} list.timeSelectable`,
      ops.list.timeSelectable,
      listed,
    );
    const paging = ops.list.paging ?? ['page', 'offset'];
    if (paging.length === 0 || paging.some((p) => p !== 'page' && p !== 'offset')) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${label} list.paging must name "page" and/or "offset".`,
      );
    }
    list = { sortable, filterable, timeSelectable, paging, summary };
  }
  const readOnly = [
    ...COMMON_READ_ONLY_FIELDS,
    ...fieldList(`${label} readOnly`, resource.readOnly, fields).filter(
      (name) => !(COMMON_READ_ONLY_FIELDS as readonly string[]).includes(name),
    ),
  ];
  const deprecated = { ...(resource.deprecated ?? {}) };
  for (const [key, reason] of Object.entries(deprecated)) {
    const field = key.split('.')[0] ?? key;
    if (!fields.includes(field)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${label} deprecates "${key}", but has no field "${field}".`,
      );
    }
    requireString(`${label} deprecation reason of "${key}"`, reason);
  }
  const actions = (resource.actions ?? []).map((action, i) => {
    if (typeof action.name !== 'string' || !SEGMENT.test(action.name)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${label} actions[${i}].name must be a path segment.`,
      );
    }
    requireString(`${label} action "${action.name}" summary`, action.summary);
    return {
      name: action.name,
      summary: action.summary,
      body:
        action.body === undefined
          ? undefined
          : toJsonSchema(action.body, 'input', `${label} action "${action.name}" body`),
      example: action.example,
    };
  });
  assertUnique(
    `${label} action name`,
    actions.map((a) => a.name),
  );
  const replace =
    ops.replace === undefined || ops.replace === false
      ? false
      : { upsert: ops.replace === true ? false : ops.replace.upsert === true };
  return Object.freeze({
    name: resource.name,
    path: resource.path,
    summary: resource.summary,
    representation,
    create:
      ops.create === undefined ? undefined : toJsonSchema(ops.create, 'input', `${label} create`),
    createSource: ops.create,
    list,
    read: ops.read === true,
    replace,
    patch: ops.patch === true,
    delete: ops.delete === true,
    readOnly,
    deprecated,
    actions,
    example: resource.example,
  });
}

function describeOperation(operation: OperationDescription, index: number): DescribedOperation {
  const where = `operations[${index}]`;
  assertOptionsObject(`describeApi: ${where}`, operation);
  assertKnownOptions(`describeApi: ${where}`, operation, OPERATION_OPTIONS);
  if (typeof operation.operationId !== 'string' || !OPERATION_ID.test(operation.operationId)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where}.operationId must be an identifier.`,
    );
  }
  const label = `operation "${operation.operationId}"`;
  if (operation.method !== 'GET' && operation.method !== 'POST') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} method must be "GET" or "POST".`,
    );
  }
  if (typeof operation.path !== 'string' || !OPERATION_PATH.test(operation.path)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} path must look like "/risk/decisions".`,
    );
  }
  requireString(`${label} summary`, operation.summary);
  const kinds = ['resource-oriented', 'composite', 'transient', 'computed'];
  if (!kinds.includes(operation.kind)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label} kind must be one of ${kinds.join(', ')}.`,
    );
  }
  if ((operation.kind === 'computed') !== (operation.method === 'GET')) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${label}: computed resources are read with GET, the other kinds are POSTed.`,
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
        : toJsonSchema(operation.body, 'input', `${label} body`),
    example: operation.example,
    query:
      operation.query === undefined
        ? undefined
        : toJsonSchema(operation.query, 'input', `${label} query`),
    response: toJsonSchema(operation.response, 'output', `${label} response`),
    creates: operation.creates,
  });
}

function fieldList(
  where: string,
  value: readonly string[] | undefined,
  fields: string[],
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} must be an array of field names.`,
    );
  for (const name of value) {
    if (!fields.includes(name)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'describeApi',
        `${where} names "${String(name)}", which is not a field.`,
      );
    }
  }
  return [...value];
}

function requireString(where: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} must be a non-empty string.`,
    );
  }
}

function assertUnique(what: string, values: readonly string[]): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value))
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        'describeApi',
        `${what} "${value}" is used twice.`,
      );
    seen.add(value);
  }
}
