import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeForStatus, ERROR_CATALOGUE, type ErrorCode } from '../src/index.js';

const packagesDir = new URL('../../', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every error status written in the source of any Resourceful package (`status: 409`,
 * `statusCode = 413`, `writeHead(431`), plus the statuses of the catalogue itself: a package
 * that starts sending a new status fails the mapping test below until the catalogue has it.
 */
function sourceStatuses(): Set<number> {
  const found = new Set<number>();
  for (const name of readdirSync(packagesDir)) {
    let files: string[];
    try {
      files = sourceFiles(join(packagesDir, name, 'src'));
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(
        /\b(?:status:\s*|statusCode\s*=\s*|writeHead\()([45]\d\d)\b/g,
      )) {
        found.add(Number(match[1]));
      }
    }
  }
  return found;
}

function statusesSent(): number[] {
  const catalogue = Object.values(ERROR_CATALOGUE).map((entry) => entry.status);
  // ApiError.upstream picks 504 at run time (`timeout ? 504 : 502`).
  return [...new Set([...sourceStatuses(), ...catalogue, 504])].sort();
}

describe('error catalogue', () => {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

  it('keeps to about 20 codes, as the spec recommends', () => {
    expect(codes.length).toBeLessThanOrEqual(24);
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

  it('finds the statuses the packages send in their source', () => {
    expect([...sourceStatuses()]).toEqual(expect.arrayContaining([401, 408, 417, 431, 503]));
  });

  it('maps every status a Resourceful package sends to a code of its own', () => {
    for (const status of statusesSent()) {
      const code = codeForStatus(status);
      // UPSTREAM_ERROR is one code for 502 and 504 (a timeout), told apart by the status.
      const expected = code === 'UPSTREAM_ERROR' ? [502, 504] : [ERROR_CATALOGUE[code].status];
      expect(expected, `status ${status} maps to ${code}`).toContain(status);
    }
  });

  it('falls back to the generic code of the class for a status it does not know', () => {
    expect(codeForStatus(418)).toBe('INVALID_REQUEST');
    expect(codeForStatus(599)).toBe('INTERNAL_SERVER_ERROR');
  });
});
