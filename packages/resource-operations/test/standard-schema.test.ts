import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import request from 'supertest';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { mountOperations, transientOperation } from '../src/index.js';

/** A validator that is not zod: asynchronous, with object path segments. */
const itemsSchema: StandardSchemaV1<unknown, { items: { id: string }[] }> = {
  '~standard': {
    version: 1,
    vendor: 'hand-written',
    async validate(value) {
      const items = (value as { items?: unknown }).items;
      if (!Array.isArray(items))
        return { issues: [{ message: 'must be an array', path: ['items'] }] };
      const issues: StandardSchemaV1.Issue[] = [];
      items.forEach((item, index) => {
        if (typeof (item as { id?: unknown })?.id !== 'string') {
          issues.push({
            message: 'must be a string',
            path: [{ key: 'items' }, index, { key: 'id' }],
          });
        }
      });
      return issues.length > 0 ? { issues } : { value: { items: items as { id: string }[] } };
    },
  },
};

describeEachExpress('any Standard Schema v1', (express) => {
  function build() {
    const app = express();
    app.use(express.json());
    mountOperations(app, [
      transientOperation({
        path: '/v1/items/count',
        body: itemsSchema,
        compute: ({ body }) => ({ count: body.items.length }),
      }),
      transientOperation({
        path: '/v1/notes/check',
        body: z.object({ note: z.object({ text: z.string() }).strict() }).strict(),
        compute: () => ({ ok: true }),
      }),
    ]);
    app.use(errorHandler());
    return app;
  }

  it('validates with a schema that is not zod, asynchronously', async () => {
    const res = await request(build())
      .post('/v1/items/count')
      .send({ items: [{ id: 'a' }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 1 });
  });

  it('names the field from object path segments', async () => {
    const res = await request(build())
      .post('/v1/items/count')
      .send({ items: [{ id: 'a' }, { id: 2 }] });
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'items[1].id' });
    expect(res.body.error.details).toEqual([
      { code: 'VALIDATION_ERROR', message: 'must be a string', target: 'items[1].id' },
    ]);
  });

  it('lists one detail per issue and at most 100', async () => {
    const items = Array.from({ length: 150 }, () => ({ id: 0 }));
    const res = await request(build()).post('/v1/items/count').send({ items });
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
    expect(res.body.error.details).toHaveLength(100);
    expect(res.body.error.message).toMatch(/150 problems/);
  });

  it('names each unknown field of a strict zod object, nested ones by their path', async () => {
    const res = await request(build())
      .post('/v1/notes/check')
      .send({ note: { text: 'a', colour: 'red' }, admin: true, role: 'x' });
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
    expect(
      res.body.error.details.map((detail: { target: string }) => detail.target).sort(),
    ).toEqual(['admin', 'note.colour', 'role']);
  });
});
