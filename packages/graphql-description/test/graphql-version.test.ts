import { versionInfo } from 'graphql';
import { expect, it } from 'vitest';

// The suite runs against graphql 16 everywhere and again against graphql 17 on Node 22+
// (vitest.config.ts); this makes sure each run really has the major it claims.
it('runs against the graphql major of its project', () => {
  expect(versionInfo.major).toBe(Number(process.env.GRAPHQL_MAJOR ?? 16));
});
