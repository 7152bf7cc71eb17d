/**
 * @module Adding to list-valued response headers without overwriting what is there.
 */
import type { ServerResponse } from 'node:http';

function currentValues(res: ServerResponse, name: string): string[] {
  const current = res.getHeader(name);
  if (current === undefined) return [];
  const joined = Array.isArray(current) ? current.join(',') : String(current);
  return joined
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * Adds `field` to `Vary` unless it is listed already (case-insensitively) or `Vary: *` is set.
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-12.5.5
 */
export function appendVary(res: ServerResponse, field: string): void {
  const values = currentValues(res, 'Vary');
  const lower = field.toLowerCase();
  if (values.some((value) => value === '*' || value.toLowerCase() === lower)) return;
  res.setHeader('Vary', [...values, field].join(', '));
}

/**
 * Adds an applied preference to `Preference-Applied`, keeping the ones other code applied.
 * @see https://www.rfc-editor.org/rfc/rfc7240#section-3
 */
export function appendPreferenceApplied(res: ServerResponse, preference: string): void {
  const values = currentValues(res, 'Preference-Applied');
  const name = preference.split('=')[0]?.trim().toLowerCase();
  const others = values.filter((value) => value.split('=')[0]?.trim().toLowerCase() !== name);
  res.setHeader('Preference-Applied', [...others, preference].join(', '));
}
