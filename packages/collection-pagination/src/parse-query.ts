/**
 * @module Parsing and validating list parameters of both conventions of the spec ("List" and
 * "Alternative filter and search parameters"). Pure: no request, no response.
 */
import { ApiError } from '@resourceful/error-envelope';
import { assertKnownOptions, describeValue } from '@resourceful/option-checks';
import {
  COLLECTION_SPEC_KEYS,
  type CollectionSpec,
  type Convention,
  type ParameterRole,
  type ResolvedSpec,
  resolveCollectionSpec,
} from './collection-spec.js';
import { MAX_PAGE_TOKEN_LENGTH } from './continuation-token.js';
import { parseTimestamp } from './timestamp.js';
import type {
  CollectionQuery,
  PagingParameters,
  SortOrder,
  SortSpec,
  TimeCondition,
} from './types.js';

/** A query string (with or without `?`), `URLSearchParams`, or a parsed query object. */
export type QueryInput = string | URLSearchParams | Readonly<Record<string, unknown>>;

/** Longest value accepted for a parameter this package reads. */
export const MAX_PARAMETER_LENGTH = 1024;
// Echoed in `target`; a longer name is cut so an error body stays small.
const MAX_TARGET_LENGTH = 128;
// 16 digits always fit a safe integer check; more are refused before conversion.
const INTEGER = /^[0-9]{1,16}$/;

/**
 * Parses and validates list parameters against a collection's declaration.
 * @throws ApiError 400 `INVALID_REQUEST` whose `target` names the parameter and whose
 *   `innererror.code` names the cause (see the README's Behaviour table)
 * @example parseCollectionQuery('page=2&page_size=20&sort_by=create_time', { sortable: ['create_time'] })
 */
export function parseCollectionQuery(
  input: QueryInput,
  spec: CollectionSpec = {},
): CollectionQuery {
  const fn = 'parseCollectionQuery';
  const resolved = resolveCollectionSpec(fn, spec);
  assertKnownOptions(fn, spec, COLLECTION_SPEC_KEYS);
  if (typeof input !== 'string' && (typeof input !== 'object' || input === null)) {
    throw new TypeError(
      `${fn}: the query must be a string, URLSearchParams or a parsed query object, got ${describeValue(input)}.`,
    );
  }
  return parseEntries(queryEntries(input), resolved);
}

/** The `[name, value]` pairs of a query, in order, repeats kept. */
export function queryEntries(input: QueryInput): Array<[string, string]> {
  if (typeof input === 'string') {
    return [...new URLSearchParams(input.startsWith('?') ? input.slice(1) : input)];
  }
  if (input instanceof URLSearchParams) return [...input];
  const entries: Array<[string, string]> = [];
  for (const name of Object.keys(input)) {
    const value = input[name];
    if (value === undefined) continue;
    if (typeof value === 'string') {
      entries.push([name, value]);
    } else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      for (const item of value) entries.push([name, item]);
    } else {
      // A nested object from an extended query parser (`?page[x]=1`) or a non-string value.
      throw invalid(
        name,
        `The query parameter "${clip(name)}" must be a single value.`,
        'INVALID_PARAMETER',
      );
    }
  }
  return entries;
}

interface Seen {
  readonly name: string;
  readonly value: string;
}

/** Parses `[name, value]` pairs with a resolved spec. */
export function parseEntries(
  entries: ReadonlyArray<readonly [string, string]>,
  spec: ResolvedSpec,
): CollectionQuery {
  const names = spec.names;
  const seenNames = new Set<string>();
  let convention: { convention: Convention; name: string } | undefined;
  let position: (Seen & { style: 'page' | 'page_number' | 'offset' }) | undefined;
  let size: Seen | undefined;
  let sortBy: Seen | undefined;
  let sortOrder: Seen | undefined;
  let totalRequired: Seen | undefined;
  let pageToken: Seen | undefined;
  const time: TimeCondition[] = [];
  const filters: Record<string, string> = Object.create(null);

  for (const [name, value] of entries) {
    const role: ParameterRole | undefined = spec.roles.get(name);
    if (role === undefined) {
      if (spec.unknownParameters === 'ignore') continue;
      throw invalid(
        name,
        `The query parameter "${clip(name)}" is not supported by this collection.`,
        'UNKNOWN_PARAMETER',
      );
    }
    if (role.kind === 'allowed') continue;
    if (seenNames.has(name)) {
      throw invalid(
        name,
        `The query parameter "${name}" must not be repeated.`,
        'REPEATED_PARAMETER',
      );
    }
    seenNames.add(name);
    const roleConvention = 'convention' in role ? role.convention : undefined;
    if (roleConvention !== undefined) {
      if (convention === undefined) {
        convention = { convention: roleConvention, name };
      } else if (convention.convention !== roleConvention) {
        throw invalid(
          name,
          `The query parameter "${name}" cannot be combined with "${convention.name}": use either ` +
            `${names.page}/${names.pageSize}/${names.sortBy}/${names.sortOrder} or ` +
            `${names.limit}/${names.offset}/${names.pageNumber}/${names.sortby}/${names.order}.`,
          'MIXED_PAGING_CONVENTIONS',
        );
      }
    }
    if (value === '') {
      throw invalid(name, `The query parameter "${name}" must not be empty.`, 'EMPTY_PARAMETER');
    }
    const maxLength = role.kind === 'page-token' ? MAX_PAGE_TOKEN_LENGTH : MAX_PARAMETER_LENGTH;
    if (value.length > maxLength) {
      throw invalid(
        name,
        `The query parameter "${name}" is longer than ${maxLength} characters.`,
        'PARAMETER_TOO_LONG',
      );
    }
    switch (role.kind) {
      case 'position':
        if (position !== undefined) throw conflict(name, position.name);
        position = { name, value, style: role.style };
        break;
      case 'size':
        if (size !== undefined) throw conflict(name, size.name);
        size = { name, value };
        break;
      case 'sort-by':
        sortBy = { name, value };
        break;
      case 'sort-order':
        sortOrder = { name, value };
        break;
      case 'total-required':
        totalRequired = { name, value };
        break;
      case 'page-token':
        pageToken = { name, value };
        break;
      case 'time': {
        const instant = parseTimestamp(value);
        if (instant === undefined) {
          throw invalid(
            name,
            `The query parameter "${name}" must be an RFC 3339 date-time such as 2024-05-01T00:00:00Z.`,
            'INVALID_TIMESTAMP',
          );
        }
        time.push({
          property: role.property,
          operator: role.operator,
          value: instant,
          parameter: name,
        });
        break;
      }
      case 'filter':
        filters[role.property] = value;
        break;
    }
  }

  // A token says where the page starts; a page number or an offset would say it again.
  if (pageToken !== undefined && position !== undefined) {
    throw conflict(pageToken.name, position.name);
  }
  const pageSize =
    size === undefined ? spec.defaultPageSize : parsePageSize(size, spec.maxPageSize);
  let page = 1;
  let offset = 0;
  if (position !== undefined) {
    if (position.style === 'offset') {
      offset = parseInteger(position, 0, 'INVALID_OFFSET', OFFSET_EXPECTED);
      page = Math.floor(offset / pageSize) + 1;
    } else {
      page = parseInteger(position, 1, 'INVALID_PAGE', pageExpected, pageSize);
      offset = (page - 1) * pageSize;
      if (!Number.isSafeInteger(offset)) {
        throw invalid(
          position.name,
          `The query parameter "${position.name}" must be ${pageExpected(pageSize)}.`,
          'INVALID_PAGE',
        );
      }
    }
  }

  return {
    page,
    pageSize,
    offset,
    limit: pageSize,
    sort: resolveSort(sortBy, sortOrder, spec),
    filters,
    time,
    totalRequired: resolveTotalRequired(totalRequired, spec),
    paging: pagingParameters(position, size, convention?.convention, spec),
    ...(pageToken === undefined ? {} : { pageToken: pageToken.value }),
  };
}

function parsePageSize(size: Seen, max: number): number {
  const value = parseInteger(size, 1, 'INVALID_PAGE_SIZE', pageSizeExpected, max);
  if (value > max) {
    throw invalid(
      size.name,
      `The query parameter "${size.name}" must be an integer from 1 to ${max}.`,
      'PAGE_SIZE_TOO_LARGE',
    );
  }
  return value;
}

/**
 * An offset is used as a number, so it must be a safe integer; the message names that bound
 * rather than calling `9999999999999999`, a non-negative integer, something else.
 */
const OFFSET_EXPECTED = `an integer from 0 to ${Number.MAX_SAFE_INTEGER}`;

/** The pages whose offset, `(page - 1) * pageSize`, is still a safe integer. */
function pageExpected(pageSize: number): string {
  return `an integer from 1 to ${Math.floor(Number.MAX_SAFE_INTEGER / pageSize) + 1}`;
}

function pageSizeExpected(max: number): string {
  return `an integer from 1 to ${max}`;
}

/**
 * `expected` says what the value must be (a string, or built from `bound` only when the value
 * is refused), so the message always gives the range, too-large values included.
 */
function parseInteger(
  seen: Seen,
  min: number,
  cause: string,
  expected: string | ((bound: number) => string),
  bound = 0,
): number {
  const value = INTEGER.test(seen.value) ? Number(seen.value) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    const range = typeof expected === 'string' ? expected : expected(bound);
    throw invalid(seen.name, `The query parameter "${seen.name}" must be ${range}.`, cause);
  }
  return value;
}

function resolveSort(
  sortBy: Seen | undefined,
  sortOrder: Seen | undefined,
  spec: ResolvedSpec,
): SortSpec | undefined {
  let order: SortOrder | undefined;
  if (sortOrder !== undefined) {
    if (sortOrder.value !== 'asc' && sortOrder.value !== 'desc') {
      throw invalid(
        sortOrder.name,
        `The query parameter "${sortOrder.name}" must be "asc" or "desc".`,
        'INVALID_SORT_ORDER',
      );
    }
    order = sortOrder.value;
  }
  if (sortBy !== undefined) {
    if (!spec.sortable.includes(sortBy.value)) {
      const message =
        spec.sortable.length === 0
          ? 'This collection cannot be sorted.'
          : `The query parameter "${sortBy.name}" must be one of: ${spec.sortable.join(', ')}.`;
      throw invalid(sortBy.name, message, 'UNKNOWN_SORT_PROPERTY');
    }
    return { by: sortBy.value, order: order ?? 'asc' };
  }
  if (order !== undefined && sortOrder !== undefined) {
    if (spec.defaultSort === undefined) {
      throw invalid(
        sortOrder.name,
        `The query parameter "${sortOrder.name}" needs a sort property.`,
        'SORT_ORDER_WITHOUT_PROPERTY',
      );
    }
    return { by: spec.defaultSort.by, order };
  }
  return spec.defaultSort;
}

function resolveTotalRequired(seen: Seen | undefined, spec: ResolvedSpec): boolean {
  if (seen !== undefined && seen.value !== 'true' && seen.value !== 'false') {
    throw invalid(
      seen.name,
      `The query parameter "${seen.name}" must be "true" or "false".`,
      'INVALID_BOOLEAN',
    );
  }
  return spec.totals === 'always' || seen?.value === 'true';
}

/**
 * The parameters the navigation links use: those of the convention the request chose, so that
 * following a link never mixes conventions (`sortby` alone makes the links use `page_number`).
 */
function pagingParameters(
  position: (Seen & { style: 'page' | 'page_number' | 'offset' }) | undefined,
  size: Seen | undefined,
  convention: Convention | undefined,
  spec: ResolvedSpec,
): PagingParameters {
  const names = spec.names;
  const style =
    position?.style ??
    (size?.name === names.limit
      ? 'offset'
      : convention === 'limit-offset'
        ? 'page_number'
        : 'page');
  if (style === 'offset') return { position: names.offset, size: size?.name ?? names.limit };
  const positionName = style === 'page' ? names.page : names.pageNumber;
  return { position: positionName, size: size?.name ?? names.pageSize };
}

function conflict(name: string, other: string): ApiError {
  return invalid(
    name,
    `The query parameters "${other}" and "${name}" say the same thing; send one of them.`,
    'CONFLICTING_PARAMETERS',
  );
}

function invalid(target: string, message: string, cause: string): ApiError {
  return ApiError.invalidRequest(message, { target: clip(target), innererror: { code: cause } });
}

function clip(name: string): string {
  return name.length > MAX_TARGET_LENGTH ? `${name.slice(0, MAX_TARGET_LENGTH)}…` : name;
}
