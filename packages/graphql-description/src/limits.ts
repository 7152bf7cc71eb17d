/**
 * @module Validation rules that refuse abusive queries before they run: too deep a selection,
 * or too many fields once list sizes are counted. A refusal is a GraphQL error (HTTP 400 from
 * graphql-http), never a 5xx or a hang.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  invalidOption,
  positiveIntegerOption,
} from '@resourceful/option-checks';
import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  OperationTypeNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import {
  completeIntrospectionSize,
  exhausted,
  type IntrospectionCount,
  introspectionFields,
} from './introspection-size.js';

export interface QueryLimits {
  /** Nesting of fields from the root; introspection subtrees (`__schema`, `__type`) are not counted. @default 10 */
  readonly maxDepth?: number;
  /**
   * Fields the answer can hold: each field costs 1, times the `page_size` of every list above
   * it (the largest page when it is a variable). @default 5000
   */
  readonly maxCost?: number;
  /** The page size counted for a list whose `page_size` is a variable. @default 100 */
  readonly maxPageSize?: number;
  /**
   * Root fields of a mutation (each one write, as one REST POST), counted through aliases and
   * fragments. @default 10
   */
  readonly maxMutationFields?: number;
}

export const DEFAULT_QUERY_LIMITS = {
  maxDepth: 10,
  maxCost: 5000,
  maxPageSize: 100,
  maxMutationFields: 10,
} as const;

interface Walk {
  readonly fragments: (name: string) => FragmentDefinitionNode | undefined | null;
  readonly maxPageSize: number;
  readonly visiting: Set<string>;
  /**
   * Each fragment's depth and cost at a multiplier of 1, measured once per operation: a cost is
   * proportional to its multiplier, so a spread scales it. Without this, fragments that spread
   * the next one twice make a walk of 2^n steps from a document of a few hundred bytes.
   */
  readonly measured: Map<string, Measure>;
  /** The budget of the introspection answers' fields, shared by the whole operation. */
  readonly introspection: IntrospectionCount;
}

interface Measure {
  readonly depth: number;
  readonly cost: number;
  /** Fields of the answers of the introspection root fields (`__schema`, `__type`). */
  readonly introspection: number;
}

const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

/** A fragment's depth and cost at a multiplier of 1 (a cycle, refused by graphql-js, is cut). */
function measureFragment(name: string, walk: Walk): Measure | undefined {
  const known = walk.measured.get(name);
  if (known !== undefined) return known;
  const fragment = walk.fragments(name);
  if (!fragment || walk.visiting.has(name)) return undefined;
  walk.visiting.add(name);
  const measured = measure(fragment.selectionSet, walk, 1);
  walk.visiting.delete(name);
  walk.measured.set(name, measured);
  return measured;
}

/** The depth and the cost of a selection set, following fragments (cycles are cut). */
function measure(set: SelectionSetNode, walk: Walk, multiplier: number): Measure {
  let depth = 0;
  let cost = 0;
  let introspection = 0;
  for (const selection of set.selections) {
    let inner: Measure | undefined;
    if (selection.kind === Kind.FIELD) {
      const factor = pageSize(selection, walk.maxPageSize);
      const child = selection.selectionSet
        ? measure(selection.selectionSet, walk, multiplier * factor)
        : { depth: 0, cost: 0, introspection: 0 };
      cost += multiplier + child.cost;
      if (INTROSPECTION_ROOTS.has(selection.name.value)) {
        introspection += multiplier * introspectionFields(selection, walk.introspection);
      }
      // Introspection (`__schema`, `__type`) is as deep as the type system, not the data: its
      // subtree counts towards the cost, not the depth.
      if (!selection.name.value.startsWith('__')) depth = Math.max(depth, 1 + child.depth);
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      inner = measure(selection.selectionSet, walk, multiplier);
    } else {
      const fragment = measureFragment(selection.name.value, walk);
      if (fragment === undefined) continue;
      inner = {
        depth: fragment.depth,
        cost: fragment.cost * multiplier,
        introspection: fragment.introspection * multiplier,
      };
    }
    cost += inner.cost;
    introspection += inner.introspection;
    depth = Math.max(depth, inner.depth);
  }
  return { depth, cost, introspection };
}

function pageSize(field: FieldNode, maxPageSize: number): number {
  const argument = field.arguments?.find((a) => a.name.value === 'page_size');
  if (!argument) return 1;
  if (argument.value.kind === Kind.INT)
    return Math.max(1, Math.min(Number(argument.value.value), maxPageSize));
  return maxPageSize;
}

const LIMIT_NAMES = ['maxDepth', 'maxCost', 'maxPageSize', 'maxMutationFields'] as const;

/**
 * The root fields of a mutation that write (`__typename` does not), through aliases and
 * fragments; each fragment counted once and scaled by its spreads, so fragments spreading the
 * next twice cost one pass (a cycle, refused by graphql-js, is cut).
 */
function writes(
  set: SelectionSetNode,
  fragments: (name: string) => FragmentDefinitionNode | undefined | null,
  counted: Map<string, number>,
): number {
  let count = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== '__typename') count++;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += writes(selection.selectionSet, fragments, counted);
    } else {
      const name = selection.name.value;
      let known = counted.get(name);
      if (known === undefined) {
        const fragment = fragments(name);
        counted.set(name, 0);
        known = fragment ? writes(fragment.selectionSet, fragments, counted) : 0;
        counted.set(name, known);
      }
      count += known;
    }
  }
  return count;
}

/**
 * The limits with their defaults, checked: a plain object of positive integers (construction
 * errors of `factory`, the option named `{parent}.maxDepth` …).
 */
export function resolveQueryLimits(
  factory: string,
  limits: unknown,
  parent?: string,
): Required<QueryLimits> {
  if (limits === undefined) return DEFAULT_QUERY_LIMITS;
  const expected =
    '{ maxDepth?, maxCost?, maxPageSize?, maxMutationFields? }, each a positive integer';
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    if (parent === undefined) assertOptionsObject(factory, limits);
    invalidOption(factory, parent as string, expected, limits);
  }
  assertKnownOptions(factory, limits, LIMIT_NAMES, parent);
  const given = limits as QueryLimits;
  const name = (limit: string) => (parent === undefined ? limit : `${parent}.${limit}`);
  return {
    maxDepth: positiveIntegerOption(
      factory,
      name('maxDepth'),
      given.maxDepth,
      DEFAULT_QUERY_LIMITS.maxDepth,
    ),
    maxCost: positiveIntegerOption(
      factory,
      name('maxCost'),
      given.maxCost,
      DEFAULT_QUERY_LIMITS.maxCost,
    ),
    maxPageSize: positiveIntegerOption(
      factory,
      name('maxPageSize'),
      given.maxPageSize,
      DEFAULT_QUERY_LIMITS.maxPageSize,
    ),
    maxMutationFields: positiveIntegerOption(
      factory,
      name('maxMutationFields'),
      given.maxMutationFields,
      DEFAULT_QUERY_LIMITS.maxMutationFields,
    ),
  };
}

/** The validation rules for `limits`, to add to graphql-js's specified rules. */
export function queryLimitRules(limits?: QueryLimits): ValidationRule[] {
  return limitRules(resolveQueryLimits('queryLimitRules', limits));
}

/** The rules of limits already checked. */
export function limitRules({
  maxDepth,
  maxCost,
  maxPageSize,
  maxMutationFields,
}: Required<QueryLimits>): ValidationRule[] {
  return [
    function QueryLimitsRule(context: ValidationContext): ASTVisitor {
      return {
        OperationDefinition(operation) {
          const fragments = (name: string) => context.getFragment(name);
          if (operation.operation === OperationTypeNode.MUTATION) {
            const count = writes(operation.selectionSet, fragments, new Map());
            if (count > maxMutationFields) {
              context.reportError(
                new GraphQLError(
                  `The mutation has ${count} fields that write; at most ${maxMutationFields} are served in one request.`,
                  { nodes: [operation], extensions: { code: 'TOO_MANY_MUTATIONS' } },
                ),
              );
            }
          }
          const maxIntrospection = completeIntrospectionSize(context.getSchema());
          const walk: Walk = {
            fragments,
            maxPageSize,
            visiting: new Set(),
            measured: new Map(),
            introspection: {
              schema: context.getSchema(),
              fragments,
              fieldsLeft: maxIntrospection,
              fragmentsLeft: maxIntrospection,
              visiting: new Set(),
            },
          };
          const { depth, cost, introspection } = measure(operation.selectionSet, walk, 1);
          if (depth > maxDepth) {
            context.reportError(
              new GraphQLError(
                `The query is ${depth} fields deep; at most ${maxDepth} are served.`,
                {
                  nodes: [operation],
                  extensions: { code: 'QUERY_TOO_DEEP' },
                },
              ),
            );
          } else if (cost > maxCost) {
            context.reportError(
              new GraphQLError(
                `The query could return ${cost} fields; at most ${maxCost} are served.`,
                {
                  nodes: [operation],
                  extensions: { code: 'QUERY_TOO_COSTLY' },
                },
              ),
            );
          } else if (introspection > maxIntrospection || exhausted(walk.introspection)) {
            context.reportError(
              new GraphQLError(
                `The introspection in the query would answer more than ${maxIntrospection} fields, the size of one complete introspection of the schema.`,
                {
                  nodes: [operation],
                  extensions: { code: 'INTROSPECTION_TOO_LARGE' },
                },
              ),
            );
          }
        },
      };
    },
  ];
}
