/**
 * @module SQL identifiers. Only names from the data source's configuration become identifiers,
 * never client input; they are still checked at construction and always double-quoted
 * (PostgreSQL "4.1.1. Identifiers and Key Words"), so a reserved word or a mixed-case name works.
 */
import { invalidOption } from '@resourceful/option-checks';

// PostgreSQL truncates identifiers at 63 bytes (NAMEDATALEN - 1); a longer one is a mistake.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/** Checks a configured name and returns it double-quoted. */
export function quotedIdentifier(factory: string, option: string, name: unknown): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    invalidOption(
      factory,
      option,
      'a SQL identifier (a letter or underscore, then letters, digits, _ or $; at most 63)',
      name,
    );
  }
  return `"${name}"`;
}

/** `"schema"."table"` or `"table"`. */
export function quotedTableName(factory: string, table: unknown): string {
  if (typeof table !== 'string') return quotedIdentifier(factory, 'table', table);
  const parts = table.split('.');
  if (parts.length > 2) return quotedIdentifier(factory, 'table', table);
  return parts.map((part) => quotedIdentifier(factory, 'table', part)).join('.');
}
