/**
 * @module The custom scalars the generated schema uses: `DateTime` for the conventions'
 * timestamps (RFC 3339, checked in and out) and `JSONObject` for free-form objects.
 */
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

/** RFC 3339 §5.6 `date-time`, with the `T` and `Z` in either case. */
const RFC3339 =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** True for an RFC 3339 timestamp naming a real day (no 31 April). */
export function isRfc3339(value: string): boolean {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [, year, month, day] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCDate() === Number(day);
}

function timestamp(value: unknown, direction: 'in' | 'out'): string {
  if (direction === 'out' && value instanceof Date && !Number.isNaN(value.getTime())) {
    return value.toISOString();
  }
  if (typeof value === 'string' && isRfc3339(value)) return value;
  throw new GraphQLError(
    `DateTime ${direction === 'in' ? 'argument' : 'value'} must be an RFC 3339 timestamp, such as 2026-11-23T10:00:00Z.`,
  );
}

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description:
    'A timestamp in RFC 3339 format (UTC in what the service sends), e.g. 2026-11-23T10:00:00Z.',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc3339',
  serialize: (value) => timestamp(value, 'out'),
  parseValue: (value) => timestamp(value, 'in'),
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING) throw new GraphQLError('DateTime literals are strings.');
    return timestamp(node.value, 'in');
  },
});

function literalValue(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(literalValue);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalValue(f.value)]));
    default:
      throw new GraphQLError('JSONObject literals cannot hold variables.');
  }
}

function plainObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GraphQLError('JSONObject values are objects.');
  }
  return value as Record<string, unknown>;
}

export const JsonObjectScalar = new GraphQLScalarType({
  name: 'JSONObject',
  description: 'A JSON object whose fields the description leaves open.',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc8259#section-4',
  serialize: plainObject,
  parseValue: plainObject,
  parseLiteral: (node) => plainObject(literalValue(node)),
});
