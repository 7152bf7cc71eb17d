import type { IncomingMessage } from 'node:http';
import express, { type Request } from 'express';
import request from 'supertest';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type JsonPatchUpdateOptions,
  jsonPatchUpdate,
  type PutReplaceOptions,
  putReplace,
  type ResourceRequest,
} from '../src/index.js';

interface Thing {
  id: string;
  name?: string;
}

// These are compile-time checks (the root `tsc` reads the tests), with a run to keep them honest.
describe('types', () => {
  it('lets handlers after the middleware keep Express request types', async () => {
    const store = new Map<string, Thing>([['T-1', { id: 'T-1' }]]);
    const app = express();
    app.patch(
      '/things/:id',
      (req, _res, next) => {
        expectTypeOf(req.body).toBeAny();
        next();
      },
      jsonPatchUpdate<Thing>({
        load: (id) => store.get(id),
        save: (thing) => {
          store.set(thing.id, thing);
        },
        timestamps: false,
      }),
    );
    app.put(
      '/things/:id',
      express.json(),
      putReplace<Thing>({ load: (id) => store.get(id), save: () => {}, timestamps: false }),
      (req, res) => {
        expectTypeOf(req.body).toBeAny();
        expectTypeOf(req.params.id).toEqualTypeOf<string>();
        expectTypeOf(req).toExtend<Request>();
        res.end();
      },
    );
    app.post(
      '/things',
      jsonPatchUpdate<Thing>({ load: () => undefined, save: () => {} }),
      (req, res) => {
        expectTypeOf(req.body).toBeAny();
        res.end();
      },
    );
    const res = await request(app)
      .patch('/things/T-1')
      .set('Content-Type', 'application/merge-patch+json')
      .send('{"name":"a"}');
    expect(res.status).toBe(204);
    expect(store.get('T-1')).toEqual({ id: 'T-1', name: 'a' });
  });

  it('types the middleware against node:http', () => {
    const middleware = jsonPatchUpdate<Thing>({ load: () => undefined, save: () => {} });
    expectTypeOf(middleware).parameter(0).toEqualTypeOf<IncomingMessage>();
  });

  it('passes the resource first and the request last to every callback', () => {
    type Callbacks = Required<JsonPatchUpdateOptions<Thing>>;
    expectTypeOf<Parameters<Callbacks['represent']>>().toEqualTypeOf<[Thing, ResourceRequest]>();
    expectTypeOf<Parameters<Callbacks['etag']>>().toEqualTypeOf<[Thing, ResourceRequest]>();
    expectTypeOf<Parameters<Callbacks['location']>>().toEqualTypeOf<[Thing, ResourceRequest]>();
    expectTypeOf<Parameters<Required<PutReplaceOptions<Thing>>['location']>>().toEqualTypeOf<
      [Thing, ResourceRequest]
    >();
  });

  it('calls location with the created resource and the request', async () => {
    const app = express();
    const calls: unknown[][] = [];
    app.patch(
      '/things/:id',
      jsonPatchUpdate<Thing>({
        load: () => undefined,
        save: () => {},
        upsert: true,
        timestamps: false,
        location: (thing, req) => {
          calls.push([thing.id, req.url]);
          return `/v1/things/${thing.id}`;
        },
      }),
    );
    const res = await request(app)
      .patch('/things/T-9')
      .set('Content-Type', 'application/merge-patch+json')
      .send('{"name":"n"}');
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe('/v1/things/T-9');
    expect(calls).toEqual([['T-9', '/things/T-9']]);
  });
});
