/**
 * @module Adding to list-valued response headers without overwriting what is there.
 */
import type { ServerResponse } from 'node:http';
import vary from 'vary';

function currentValue(res: ServerResponse, name: string): string | undefined {
  const current = res.getHeader(name);
  if (current === undefined) return undefined;
  return Array.isArray(current) ? current.join(', ') : String(current);
}

/**
 * Adds `field` to `Vary` unless it is listed already or `Vary: *` is set, keeping what other code
 * wrote: `vary`, the module Express's own `res.vary` uses (RFC 9110 §12.5.5).
 */
export const appendVary: (res: ServerResponse, field: string) => void = vary;

/** Adds a link-value to `Link` (RFC 8288), keeping links set earlier. */
export function appendLink(res: ServerResponse, linkValue: string): void {
  const current = currentValue(res, 'Link');
  res.setHeader(
    'Link',
    current === undefined || current === '' ? linkValue : `${current}, ${linkValue}`,
  );
}
