import { ApiError } from '@resourceful/error-envelope';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../src/index.js';

const key = fc.constantFrom('a', 'b', 'c', 'id', 'x~y', 'p/q', '0', '1', '-');
const pointer = fc
  .array(key, { maxLength: 3 })
  .map((segments) =>
    segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''),
  );
const json = fc.jsonValue({ maxDepth: 3 });

const operation = fc.oneof(
  fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: pointer, value: json }),
  fc.record({ op: fc.constant('remove'), path: pointer }),
  fc.record({ op: fc.constantFrom('move', 'copy'), from: pointer, path: pointer }),
  // Malformed operations too: the answer must still be all or nothing, never a crash.
  fc.record({ op: fc.string({ maxLength: 6 }), path: fc.string({ maxLength: 6 }) }),
);

const documentArb = fc.dictionary(key, json, { maxKeys: 5 });

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');

// Seeded, so a CI run is repeatable; FAST_CHECK_SEED explores others.
const seed = Number(process.env.FAST_CHECK_SEED ?? 20261123);

describe('applyJsonPatch (property)', () => {
  it('applies a random patch fully or changes nothing and throws an ApiError', () => {
    fc.assert(
      fc.property(
        documentArb,
        fc.array(operation, { maxLength: 6 }),
        fc.boolean(),
        (doc, patch, readOnly) => {
          const before = structuredClone(doc);
          let result: unknown;
          let error: unknown;
          try {
            result = applyJsonPatch(doc, patch, { readOnly: readOnly ? ['id'] : [] });
          } catch (caught) {
            error = caught;
          }
          // The input document is never changed, whatever happened.
          expect(doc).toEqual(before);
          if (error !== undefined) {
            expect(error).toBeInstanceOf(ApiError);
            expect((error as ApiError).status).toBeGreaterThanOrEqual(400);
            expect((error as ApiError).status).toBeLessThan(500);
            return;
          }
          // Applied fully: every test operation of the patch holds on the way, so re-applying the
          // patch to the original gives the same result (deterministic, no partial state).
          expect(applyJsonPatch(before, patch, { readOnly: readOnly ? ['id'] : [] })).toEqual(
            result,
          );
          if (readOnly) expect((result as Record<string, unknown>)?.id).toEqual(before.id);
        },
      ),
      { numRuns: 500, seed },
    );
  });

  it('leaves the document unchanged when any operation of a patch fails', () => {
    fc.assert(
      fc.property(documentArb, fc.array(operation, { maxLength: 5 }), (doc, patch) => {
        const before = structuredClone(doc);
        // A final operation that always fails: nothing before it may have taken effect.
        const failing = [...patch, { op: 'test', path: '/nowhere-at-all', value: 1 }];
        expect(() => applyJsonPatch(doc, failing)).toThrow(ApiError);
        expect(doc).toEqual(before);
      }),
      { numRuns: 300, seed },
    );
  });

  // The reference model: the same operations applied one request at a time.
  it('applies a patch whose operations all succeed exactly like applying them one at a time', () => {
    fc.assert(
      fc.property(documentArb, fc.array(operation, { maxLength: 5 }), (doc, patch) => {
        let stepwise: unknown = doc;
        for (const op of patch) {
          try {
            stepwise = applyJsonPatch(stepwise, [op]);
          } catch {
            return; // a failing patch is covered above
          }
        }
        // Compared as the JSON they are sent as: -0 and 0 are one JSON number, and a copy of
        // the document may hold either.
        expect(asJson(applyJsonPatch(doc, patch))).toEqual(asJson(stepwise));
      }),
      { numRuns: 300, seed },
    );
  });
});
