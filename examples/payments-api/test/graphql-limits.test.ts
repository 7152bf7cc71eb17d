/**
 * The GraphQL endpoint's bounds as the example serves them: the reviewer's deeply nested
 * document, on the first request of a fresh app (its parser not yet run) and repeated.
 */
import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const DEEP = `{${'a{'.repeat(3000)}b${'}'.repeat(3001)}}`;

describeEachExpress('the GraphQL endpoint’s nesting bound', (express) => {
  it('refuses a document nested 3000 deep with QUERY_TOO_NESTED, first and every time', async () => {
    const app = createApp({ express });
    for (let round = 0; round < 3; round++) {
      const res = await request(app)
        .post('/graphql')
        .set('Accept', 'application/graphql-response+json')
        .send({ query: DEEP });
      expect(res.status, `round ${round}`).toBe(400);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_NESTED' });
      expect(res.text).not.toMatch(/call stack|RangeError|tokens/i);
    }
  });
});
