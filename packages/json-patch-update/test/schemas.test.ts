import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonPatchUpdate, putReplace, type StandardSchemaV1 } from '../src/index.js';
import { buildApp, type Fixture, seed, type Webhook } from './fixtures.js';

// The same resource described with two Standard Schema libraries: zod 4 and valibot 1.
const valibotWebhook = v.object({
  id: v.string(),
  url: v.pipe(v.string(), v.url()),
  event_types: v.array(v.object({ name: v.string(), description: v.optional(v.string()) })),
  secret: v.optional(v.string()),
  description: v.optional(v.string()),
  create_time: v.string(),
  update_time: v.string(),
});

const zodWebhook = z.object({
  id: z.string(),
  url: z.url(),
  event_types: z.array(z.object({ name: z.string(), description: z.string().optional() })),
  secret: z.string().optional(),
  description: z.string().optional(),
  create_time: z.string(),
  update_time: z.string(),
});

/** A schema whose validation is asynchronous, as Standard Schema allows. */
const asyncSchema: StandardSchemaV1<unknown, Webhook> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (value) => {
      const result = await zodWebhook['~standard'].validate(value);
      return result;
    },
  },
};

const schemas: [string, StandardSchemaV1<unknown, Webhook>][] = [
  ['zod', zodWebhook],
  ['valibot', valibotWebhook],
  ['an asynchronous schema', asyncSchema],
];

describeEachExpress('schema option (Standard Schema)', (express) => {
  let fixture: Fixture;
  beforeEach(() => {
    fixture = { store: seed(), saves: 0 };
  });

  describe.each(schemas)('with %s', (_name, schema) => {
    it('saves a valid patched resource', async () => {
      const res = await request(buildApp(express, fixture, { schema }))
        .patch('/hooks/WH-1')
        .set('Content-Type', 'application/merge-patch+json')
        .send(JSON.stringify({ url: 'https://b.example/h' }));
      expect(res.status).toBe(204);
      expect(fixture.store.get('WH-1')?.url).toBe('https://b.example/h');
    });

    it('answers 400 VALIDATION_ERROR naming the nested field, and saves nothing', async () => {
      const res = await request(buildApp(express, fixture, { schema }))
        .patch('/hooks/WH-1')
        .set('Content-Type', 'application/json-patch+json')
        .send(JSON.stringify([{ op: 'replace', path: '/event_types/0/name', value: 7 }]));
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
      expect(res.body.error.details).toEqual([
        expect.objectContaining({ code: 'VALIDATION_ERROR', target: 'event_types[0].name' }),
      ]);
      expect(fixture.saves).toBe(0);
    });

    it('validates a PUT replacement', async () => {
      const res = await request(buildApp(express, fixture, { schema }))
        .put('/hooks/WH-1')
        .send({ url: 'not a url', event_types: [] });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
      expect(res.body.error.details[0].target).toBe('url');
    });

    describe('a patch setting a member the schema does not have (RFC 6902 §5)', () => {
      it.each([
        ['an add', [{ op: 'add', path: '/nickname', value: 'x' }], 'nickname'],
        ['a copy', [{ op: 'copy', from: '/url', path: '/nickname' }], 'nickname'],
        ['a move', [{ op: 'move', from: '/description', path: '/nickname' }], 'nickname'],
        [
          'an add of an object with an unknown member',
          [{ op: 'add', path: '/event_types/0', value: { name: 'a', colour: 'red' } }],
          'event_types[0].colour',
        ],
      ])('answers 400 UNKNOWN_FIELD to %s and saves nothing', async (_kind, patch, target) => {
        const app = buildApp(express, fixture, { schema });
        const before = structuredClone(fixture.store.get('WH-1'));
        const res = await request(app)
          .patch('/hooks/WH-1')
          .set('Content-Type', 'application/json-patch+json')
          .send(JSON.stringify(patch));
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target });
        expect(res.body.error.innererror.code).toBe('UNKNOWN_FIELD');
        expect(res.body.error.details).toEqual([
          expect.objectContaining({ code: 'UNKNOWN_FIELD', target }),
        ]);
        expect(fixture.saves).toBe(0);
        expect(fixture.store.get('WH-1')).toEqual(before);
      });

      it('answers 400 UNKNOWN_FIELD to a merge patch naming one, and saves nothing', async () => {
        const res = await request(buildApp(express, fixture, { schema }))
          .patch('/hooks/WH-1')
          .set('Content-Type', 'application/merge-patch+json')
          .send(JSON.stringify({ description: 'kept?', nickname: 'x' }));
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'nickname' });
        expect(fixture.saves).toBe(0);
        expect(fixture.store.get('WH-1')?.description).not.toBe('kept?');
      });

      it('answers 400 UNKNOWN_FIELD to a PUT with unknown members, naming each', async () => {
        const before = structuredClone(fixture.store.get('WH-1'));
        const res = await request(buildApp(express, fixture, { schema }))
          .put('/hooks/WH-1')
          .send({
            url: 'https://b.example/h',
            event_types: [{ name: 'a', colour: 'red' }],
            nickname: null,
          });
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
        expect(res.body.error.details.map((d: { target: string }) => d.target).sort()).toEqual([
          'event_types[0].colour',
          'nickname',
        ]);
        expect(fixture.saves).toBe(0);
        expect(fixture.store.get('WH-1')).toEqual(before);
      });

      it('takes back in a PUT the members GET sent that are not stored (links)', async () => {
        const app = buildApp(express, fixture, {
          schema,
          represent: (hook) => ({ ...hook, links: [{ rel: 'self', href: `/hooks/${hook.id}` }] }),
        });
        const links = [{ rel: 'self', href: '/hooks/WH-1' }];
        const res = await request(app)
          .put('/hooks/WH-1')
          .send({ ...fixture.store.get('WH-1'), links, description: 'changed' });
        expect(res.status).toBe(204);
        expect(fixture.store.get('WH-1')).not.toHaveProperty('links');
        expect(fixture.store.get('WH-1')?.description).toBe('changed');
      });

      it('applies a patch that adds a member and removes it again', async () => {
        const res = await request(buildApp(express, fixture, { schema }))
          .patch('/hooks/WH-1')
          .set('Content-Type', 'application/json-patch+json')
          .send(
            JSON.stringify([
              { op: 'add', path: '/nickname', value: 'x' },
              { op: 'remove', path: '/nickname' },
              { op: 'add', path: '/event_types/-', value: { name: 'b' } },
            ]),
          );
        expect(res.status).toBe(204);
        expect(fixture.store.get('WH-1')?.event_types.at(-1)).toEqual({ name: 'b' });
      });
    });
  });

  it('infers the resource type from the schema', () => {
    const middleware = jsonPatchUpdate({
      load: () => undefined,
      save: (hook) => {
        // A compile-time check: `hook` has the schema's output type.
        const url: string = hook.url;
        expect(typeof url).toBe('string');
      },
      schema: valibotWebhook,
    });
    expect(typeof middleware).toBe('function');
    expect(() =>
      putReplace({ load: () => undefined, save: () => {}, schema: zodWebhook }),
    ).not.toThrow();
  });
});
