import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeForStatus, ERROR_CATALOGUE } from '../src/index.js';

describe('error catalogue', () => {
  const codes = Object.keys(ERROR_CATALOGUE);

  it('keeps to at most 20 codes, as the spec recommends', () => {
    expect(codes.length).toBeLessThanOrEqual(20);
  });

  it('uses upper snake case codes with an error status', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
    }
  });

  it('is documented in the README, every code with its status', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(readme).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${entry.status}\\s*\\|`));
    }
  });

  it('maps every status it knows to a code of the catalogue', () => {
    for (const status of [400, 401, 403, 404, 405, 409, 412, 413, 414, 415, 418, 422, 428, 429]) {
      expect(codes).toContain(codeForStatus(status));
    }
    for (const status of [500, 501, 502, 503, 504, 599]) {
      expect(codes).toContain(codeForStatus(status));
    }
  });
});
