import { createRequire } from 'node:module';
import { ApiError } from '@resourceful/error-envelope';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../src/index.js';

interface SuiteCase {
  comment?: string;
  doc: unknown;
  patch: unknown;
  expected?: unknown;
  error?: string;
  disabled?: boolean;
}

const require = createRequire(import.meta.url);

// The public RFC 6902 test suite (github.com/json-patch/json-patch-tests), run through the
// package's own apply function: every case that is not disabled passes.
for (const file of ['tests.json', 'spec_tests.json']) {
  const cases = require(`json-patch-test-suite/${file}`) as SuiteCase[];
  const enabled = cases.filter((c) => c.disabled !== true);

  describe(`json-patch-test-suite ${file}`, () => {
    it('has cases to run', () => {
      expect(enabled.length).toBeGreaterThan(10);
    });

    enabled.forEach((c, index) => {
      const name = `#${index} ${c.comment ?? JSON.stringify(c.patch).slice(0, 60)}`;
      if (c.error !== undefined) {
        it(`refuses ${name}`, () => {
          // An ApiError, so the middleware answers 4xx and never 500.
          expect(() => applyJsonPatch(c.doc, c.patch)).toThrow(ApiError);
        });
      } else {
        it(`applies ${name}`, () => {
          const original = structuredClone(c.doc);
          const result = applyJsonPatch(c.doc, c.patch);
          if ('expected' in c) expect(result).toEqual(c.expected);
          expect(c.doc).toEqual(original);
        });
      }
    });
  });
}
