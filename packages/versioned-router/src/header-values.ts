/**
 * @module Adding to list-valued response headers without overwriting what is there.
 */
import type { ServerResponse } from 'node:http';

function currentValue(res: ServerResponse, name: string): string | undefined {
  const current = res.getHeader(name);
  if (current === undefined) return undefined;
  return Array.isArray(current) ? current.join(', ') : String(current);
}

/** Adds `field` to `Vary` unless it is listed already (case-insensitively) or `Vary: *` is set. */
export function appendVary(res: ServerResponse, field: string): void {
  const current = currentValue(res, 'Vary');
  if (current === undefined || current.trim() === '') {
    res.setHeader('Vary', field);
    return;
  }
  const lower = field.toLowerCase();
  const listed = current.split(',').map((value) => value.trim().toLowerCase());
  if (listed.includes('*') || listed.includes(lower)) return;
  res.setHeader('Vary', `${current}, ${field}`);
}

/** Adds a link-value to `Link` (RFC 8288), keeping links set earlier. */
export function appendLink(res: ServerResponse, linkValue: string): void {
  const current = currentValue(res, 'Link');
  res.setHeader(
    'Link',
    current === undefined || current === '' ? linkValue : `${current}, ${linkValue}`,
  );
}
