/**
 * @module What a route declares about its collection (sortable, filterable and time-selectable
 * properties, page sizes, naming), checked once and turned into a table from query parameter
 * name to meaning.
 */

import {
  assertOptionsObject,
  invalidOption,
  OPTION_ERROR_CODES,
  oneOfOption,
  optionError,
  positiveIntegerOption,
} from '@resourceful/option-checks';
import type { Naming, SortOrder, SortSpec } from './types.js';
import { parameterList, propertyList } from './validations.js';

/**
 * PayPal's list APIs default to 10 records a page; the spec leaves it open ("not shown").
 * @see https://developer.paypal.com/api/rest/
 */
export const DEFAULT_PAGE_SIZE = 10;
/** The largest `page_size` a route accepts unless it says otherwise. */
export const DEFAULT_MAX_PAGE_SIZE = 100;

/** The declaration of a collection's list parameters. */
export interface CollectionSpec {
  /** Properties `sort_by` / `sortby` may name. @default [] (no sorting) */
  sortable?: readonly string[];
  /** Sort applied when the client names none. Its property must be sortable. */
  defaultSort?: { by: string; order?: SortOrder };
  /** Properties that can be filtered by value: `?state=ok`. @default [] */
  filterable?: readonly string[];
  /** Properties with `{property}_after` / `{property}_before`. @default [] */
  timeSelectable?: readonly string[];
  /** The property `start_time` / `end_time` select on. @default the first of `timeSelectable` */
  timeProperty?: string;
  /** @default 10 */
  defaultPageSize?: number;
  /** A larger `page_size` is a 400. @default 100 */
  maxPageSize?: number;
  /**
   * `'always'` counts every time; `'on-request'` counts only when the client sends
   * `total_required=true` (PayPal), and then leaves `last` out. @default 'always'
   */
  totals?: 'always' | 'on-request';
  /** Envelope keys and parameter names. @default 'snake_case' */
  naming?: Naming;
  /**
   * Query parameters the route does not know: `'reject'` answers 400 naming the parameter,
   * `'ignore'` leaves them alone (and keeps them in links). @default 'reject'
   */
  unknownParameters?: 'reject' | 'ignore';
  /** Parameters other middleware reads (`callback`, `fields`), accepted and kept in links. */
  allowedParameters?: readonly string[];
}

export const COLLECTION_SPEC_KEYS = [
  'sortable',
  'defaultSort',
  'filterable',
  'timeSelectable',
  'timeProperty',
  'defaultPageSize',
  'maxPageSize',
  'totals',
  'naming',
  'unknownParameters',
  'allowedParameters',
] as const;

/** The two parameter conventions of the spec; mixing their exclusive parameters is a 400. */
export type Convention = 'page' | 'limit-offset';

export type ParameterRole =
  | { kind: 'position'; style: 'page' | 'page_number' | 'offset'; convention: Convention }
  | { kind: 'size'; convention: Convention | undefined }
  | { kind: 'sort-by'; convention: Convention }
  | { kind: 'sort-order'; convention: Convention }
  | { kind: 'time'; property: string; operator: 'gt' | 'gte' | 'lt' }
  | { kind: 'total-required' }
  | { kind: 'page-token' }
  | { kind: 'filter'; property: string }
  | { kind: 'allowed' };

export interface ParameterNames {
  page: string;
  pageNumber: string;
  offset: string;
  pageSize: string;
  limit: string;
  sortBy: string;
  sortby: string;
  sortOrder: string;
  order: string;
  startTime: string;
  endTime: string;
  totalRequired: string;
  pageToken: string;
  totalItems: string;
  totalPages: string;
}

const SNAKE_NAMES: ParameterNames = {
  page: 'page',
  pageNumber: 'page_number',
  offset: 'offset',
  pageSize: 'page_size',
  limit: 'limit',
  sortBy: 'sort_by',
  sortby: 'sortby',
  sortOrder: 'sort_order',
  order: 'order',
  startTime: 'start_time',
  endTime: 'end_time',
  totalRequired: 'total_required',
  pageToken: 'page_token',
  totalItems: 'total_items',
  totalPages: 'total_pages',
};

const CAMEL_NAMES: ParameterNames = {
  ...SNAKE_NAMES,
  pageNumber: 'pageNumber',
  pageSize: 'pageSize',
  sortBy: 'sortBy',
  sortOrder: 'sortOrder',
  startTime: 'startTime',
  endTime: 'endTime',
  totalRequired: 'totalRequired',
  pageToken: 'pageToken',
  totalItems: 'totalItems',
  totalPages: 'totalPages',
};

export interface ResolvedSpec {
  readonly sortable: readonly string[];
  readonly defaultSort: SortSpec | undefined;
  readonly defaultPageSize: number;
  readonly maxPageSize: number;
  readonly totals: 'always' | 'on-request';
  readonly naming: Naming;
  readonly unknownParameters: 'reject' | 'ignore';
  readonly names: ParameterNames;
  /** Query parameter name → meaning. */
  readonly roles: ReadonlyMap<string, ParameterRole>;
  /** The property `start_time` / `end_time` select on, if any. */
  readonly timeProperty: string | undefined;
}

/**
 * Validates a spec and builds its parameter table. Throws `TypeError` on a bad declaration.
 * @param pageTokens whether the route pages by continuation token (`page_token` is then known)
 */
export function resolveCollectionSpec(
  factory: string,
  spec: CollectionSpec,
  pageTokens = false,
): ResolvedSpec {
  assertOptionsObject(factory, spec);
  const sortable = propertyList(factory, 'sortable', spec.sortable);
  const filterable = propertyList(factory, 'filterable', spec.filterable);
  const timeSelectable = propertyList(factory, 'timeSelectable', spec.timeSelectable);
  const allowed = parameterList(factory, 'allowedParameters', spec.allowedParameters);
  const defaultPageSize = positiveIntegerOption(
    factory,
    'defaultPageSize',
    spec.defaultPageSize,
    DEFAULT_PAGE_SIZE,
  );
  const maxPageSize = positiveIntegerOption(
    factory,
    'maxPageSize',
    spec.maxPageSize,
    Math.max(DEFAULT_MAX_PAGE_SIZE, defaultPageSize),
  );
  if (defaultPageSize > maxPageSize) {
    throw optionError(
      OPTION_ERROR_CODES.conflictingOptions,
      factory,
      `"defaultPageSize" (${defaultPageSize}) is larger than "maxPageSize" (${maxPageSize}).`,
      'defaultPageSize',
    );
  }
  const totals = oneOfOption(factory, 'totals', spec.totals, ['always', 'on-request'], 'always');
  const naming = oneOfOption(
    factory,
    'naming',
    spec.naming,
    ['snake_case', 'camelCase'],
    'snake_case',
  );
  const unknownParameters = oneOfOption(
    factory,
    'unknownParameters',
    spec.unknownParameters,
    ['reject', 'ignore'],
    'reject',
  );
  const defaultSort = resolveDefaultSort(factory, spec.defaultSort, sortable);
  // `null` is a value to check, not "absent" (it would silently select the default property).
  const timeProperty = spec.timeProperty === undefined ? timeSelectable[0] : spec.timeProperty;
  if (timeProperty !== undefined && !timeSelectable.includes(timeProperty)) {
    invalidOption(factory, 'timeProperty', 'one of "timeSelectable"', timeProperty);
  }

  const names = naming === 'camelCase' ? CAMEL_NAMES : SNAKE_NAMES;
  const roles = new Map<string, ParameterRole>();
  const add = (name: string, role: ParameterRole, what: string) => {
    if (roles.has(name)) {
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        factory,
        `${what} would use the query parameter "${name}", which already has a meaning.`,
      );
    }
    roles.set(name, role);
  };
  add(names.page, { kind: 'position', style: 'page', convention: 'page' }, 'paging');
  add(
    names.pageNumber,
    { kind: 'position', style: 'page_number', convention: 'limit-offset' },
    'paging',
  );
  add(names.offset, { kind: 'position', style: 'offset', convention: 'limit-offset' }, 'paging');
  add(names.pageSize, { kind: 'size', convention: undefined }, 'paging');
  add(names.limit, { kind: 'size', convention: 'limit-offset' }, 'paging');
  add(names.sortBy, { kind: 'sort-by', convention: 'page' }, 'sorting');
  add(names.sortby, { kind: 'sort-by', convention: 'limit-offset' }, 'sorting');
  add(names.sortOrder, { kind: 'sort-order', convention: 'page' }, 'sorting');
  add(names.order, { kind: 'sort-order', convention: 'limit-offset' }, 'sorting');
  add(names.totalRequired, { kind: 'total-required' }, 'counting');
  if (pageTokens) add(names.pageToken, { kind: 'page-token' }, 'continuation');
  if (timeProperty !== undefined) {
    add(names.startTime, { kind: 'time', property: timeProperty, operator: 'gte' }, 'time');
    add(names.endTime, { kind: 'time', property: timeProperty, operator: 'lt' }, 'time');
  }
  for (const property of timeSelectable) {
    const [after, before] =
      naming === 'camelCase'
        ? [`${property}After`, `${property}Before`]
        : [`${property}_after`, `${property}_before`];
    add(after, { kind: 'time', property, operator: 'gt' }, `timeSelectable "${property}"`);
    add(before, { kind: 'time', property, operator: 'lt' }, `timeSelectable "${property}"`);
  }
  for (const property of filterable) {
    add(property, { kind: 'filter', property }, `filterable "${property}"`);
  }
  for (const name of allowed) add(name, { kind: 'allowed' }, `allowedParameters "${name}"`);

  return {
    sortable,
    defaultSort,
    defaultPageSize,
    maxPageSize,
    totals,
    naming,
    unknownParameters,
    names,
    roles,
    timeProperty,
  };
}

function resolveDefaultSort(
  factory: string,
  value: CollectionSpec['defaultSort'],
  sortable: readonly string[],
): SortSpec | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || !sortable.includes(value.by)) {
    invalidOption(
      factory,
      'defaultSort.by',
      `one of "sortable" (${sortable.join(', ') || 'none declared'})`,
      typeof value === 'object' && value !== null ? value.by : value,
    );
  }
  const order = oneOfOption(factory, 'defaultSort.order', value.order, ['asc', 'desc'], 'asc');
  return { by: value.by, order };
}
