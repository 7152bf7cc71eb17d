/**
 * @module Adding to `Preference-Applied` without overwriting what is there. (`Vary` is merged with
 * `vary`, the module Express itself uses.)
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
 * Adds an applied preference to `Preference-Applied`, keeping the ones other code applied.
 * @see https://www.rfc-editor.org/rfc/rfc7240#section-3
 */
export function appendPreferenceApplied(res: ServerResponse, preference: string): void {
  const values = currentValues(res, 'Preference-Applied');
  const name = preference.split('=')[0]?.trim().toLowerCase();
  const others = values.filter((value) => value.split('=')[0]?.trim().toLowerCase() !== name);
  res.setHeader('Preference-Applied', [...others, preference].join(', '));
}
