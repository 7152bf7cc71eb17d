import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type ActionDefinition, mountOperations, subResourceActions } from '../src/index.js';
import { buildFixture } from './fixture.js';

const BASE = 'http://api.test';
const rels = (body: { links: { rel: string }[] }) => body.links.map((link) => link.rel);

describeEachExpress('sub-resource actions', (express) => {
  const setup = () => buildFixture(express, { publicBaseUrl: BASE });

  describe('status', () => {
    it('answers 200 with the resource when the state changes', async () => {
      const { app } = setup();
      const res = await request(app).post('/v1/accounts/ACC-1/suspend').send({ note: 'pause' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 'ACC-1', state: 'SUSPENDED', version: 2 });
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('answers 204 without a body when nothing changes', async () => {
      const { app } = setup();
      const res = await request(app).post('/v1/accounts/ACC-2/suspend').send({});
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
    });

    describe('with Prefer: return=… (as the other writes honour it)', () => {
      it.each([
        // ACC-1 is ACTIVE (suspend changes it), ACC-2 already SUSPENDED (suspend changes nothing).
        ['a change', 'ACC-1', 'minimal', 204, 'STATE_CHANGED'],
        ['a change', 'ACC-1', 'representation', 200, 'STATE_CHANGED'],
        ['no change', 'ACC-2', 'minimal', 204, 'NO_CHANGE'],
        ['no change', 'ACC-2', 'representation', 200, 'NO_CHANGE'],
      ] as const)(
        'answers %s asked "return=%s" with %i',
        async (_, id, preference, status, outcome) => {
          const { app } = setup();
          const res = await request(app)
            .post(`/v1/accounts/${id}/suspend`)
            .set('Prefer', `return=${preference}`)
            .send({ note: 'pause' });
          expect(res.status).toBe(status);
          expect(res.headers['preference-applied']).toBe(`return=${preference}`);
          expect(res.headers.vary).toMatch(/\bPrefer\b/);
          const read = await request(app).get(`/v1/accounts/${id}`);
          expect(read.body.state).toBe('SUSPENDED');
          if (status === 200) {
            expect(res.body).toMatchObject({ id, state: 'SUSPENDED' });
          } else {
            expect(res.text).toBe('');
            expect(res.headers['content-type']).toBeUndefined();
          }
          // The resource's tag wherever the action says something of it: the next conditional
          // action can use it (a 204 of no change says nothing).
          const tagged = status === 200 || outcome === 'STATE_CHANGED';
          expect(res.headers.etag).toBe(tagged ? read.headers.etag : undefined);
          const history = await request(app).get(`/v1/accounts/${id}/history`);
          expect(history.body.items).toMatchObject([{ outcome }]);
        },
      );

      it('keeps the spec answers without a return preference, and says Vary: Prefer', async () => {
        const { app } = setup();
        const changed = await request(app)
          .post('/v1/accounts/ACC-1/suspend')
          .set('Prefer', 'wait=5');
        expect(changed.status).toBe(200);
        expect(changed.headers['preference-applied']).toBeUndefined();
        expect(changed.headers.vary).toMatch(/\bPrefer\b/);
        const unchanged = await request(app).post('/v1/accounts/ACC-1/suspend');
        expect(unchanged.status).toBe(204);
        expect(unchanged.headers['preference-applied']).toBeUndefined();
      });
    });

    it('accepts a call without a body when the schema allows it', async () => {
      const { app } = setup();
      const res = await request(app).post('/v1/accounts/ACC-1/suspend');
      expect(res.status).toBe(200);
    });

    it('answers 404 naming the id parameter for a missing resource', async () => {
      const { app } = setup();
      const res = await request(app).post('/v1/accounts/NOPE/suspend').send({});
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND', target: 'account_id' });
    });

    it('passes a business refusal through unrecorded', async () => {
      const fixture = setup();
      fixture.accounts.set('ACC-LOCKED', { id: 'ACC-LOCKED', state: 'SUSPENDED', version: 1 });
      const res = await request(fixture.app).post('/v1/accounts/ACC-LOCKED/re-activate').send({});
      expectErrorEnvelope(res, 422, { code: 'UNPROCESSABLE_ENTITY' });
      expect(res.body.error.innererror).toEqual({ code: 'ACCOUNT_LOCKED' });
      const history = await request(fixture.app).get('/v1/accounts/ACC-LOCKED/history');
      expect(history.body.items).toEqual([]);
    });
  });

  describe('links', () => {
    it('offers an action only while it would change the state, and always the history', async () => {
      const { app } = setup();
      const active = await request(app).get('/v1/accounts/ACC-1');
      expect(active.body.links).toEqual([
        { href: `${BASE}/v1/accounts/ACC-1/suspend`, rel: 'suspend', method: 'POST' },
        { href: `${BASE}/v1/accounts/ACC-1/history`, rel: 'history', method: 'GET' },
      ]);
      const suspended = await request(app).post('/v1/accounts/ACC-1/suspend').send({});
      expect(rels(suspended.body)).toEqual(['re-activate', 'history']);
    });

    it('builds links from the request host and the mount path without a public base URL', async () => {
      const { app } = buildFixture(express);
      const res = await request(app).get('/v1/accounts/ACC-1').set('Host', 'example.org:8080');
      expect(res.body.links[0].href).toBe('http://example.org:8080/v1/accounts/ACC-1/suspend');
    });

    it('percent-encodes the id in links', async () => {
      const fixture = setup();
      fixture.accounts.set('A B/1', { id: 'A B/1', state: 'ACTIVE', version: 1 });
      const res = await request(fixture.app).post('/v1/accounts/A%20B%2F1/suspend').send({});
      expect(res.status).toBe(200);
      expect(res.body.links[1].href).toBe(`${BASE}/v1/accounts/A%20B%2F1/history`);
    });
  });

  describe('history', () => {
    it('records every call, newest first, with body, outcome, states and actor', async () => {
      const { app } = setup();
      await request(app)
        .post('/v1/accounts/ACC-1/suspend')
        .set('X-User', 'ada')
        .send({ note: 'one' });
      await request(app).post('/v1/accounts/ACC-1/suspend').send({ note: 'two' });
      await request(app).post('/v1/accounts/ACC-1/re-activate').send({ note: 'three' });
      const res = await request(app).get('/v1/accounts/ACC-1/history?page_size=10');
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([
        expect.objectContaining({
          id: 'ACC-1-H3',
          action: 're-activate',
          outcome: 'STATE_CHANGED',
          request: { note: 'three' },
          state_before: 'SUSPENDED',
          state_after: 'ACTIVE',
        }),
        expect.objectContaining({
          id: 'ACC-1-H2',
          action: 'suspend',
          outcome: 'NO_CHANGE',
          request: { note: 'two' },
          state_before: 'SUSPENDED',
          state_after: 'SUSPENDED',
        }),
        expect.objectContaining({ id: 'ACC-1-H1', actor: 'ada', outcome: 'STATE_CHANGED' }),
      ]);
      expect(res.body.items[1].actor).toBeUndefined();
      expect(Date.parse(res.body.items[0].create_time)).not.toBeNaN();
    });

    it('pages through collection-pagination with navigation links', async () => {
      const { app } = setup();
      for (const note of ['a', 'b', 'c']) {
        await request(app).post('/v1/accounts/ACC-1/suspend').send({ note });
      }
      const first = await request(app).get('/v1/accounts/ACC-1/history');
      expect(first.body.items.map((e: { request: { note: string } }) => e.request.note)).toEqual([
        'c',
        'b',
      ]);
      const next = first.body.links.find((link: { rel: string }) => link.rel === 'next');
      expect(next.href).toBe(`${BASE}/v1/accounts/ACC-1/history?page=2&page_size=2`);
      const second = await request(app).get(
        new URL(next.href).pathname + new URL(next.href).search,
      );
      expect(second.body.items.map((e: { request: { note: string } }) => e.request.note)).toEqual([
        'a',
      ]);
    });

    it('filters by action and sorts oldest first on request', async () => {
      const { app } = setup();
      await request(app).post('/v1/accounts/ACC-1/suspend').send({ note: 'a' });
      await request(app).post('/v1/accounts/ACC-1/re-activate').send({ note: 'b' });
      const filtered = await request(app).get('/v1/accounts/ACC-1/history?action=re-activate');
      expect(filtered.body.items.map((e: { id: string }) => e.id)).toEqual(['ACC-1-H2']);
      const oldest = await request(app).get(
        '/v1/accounts/ACC-1/history?sort_by=create_time&sort_order=asc',
      );
      expect(oldest.body.items.map((e: { id: string }) => e.id)).toEqual(['ACC-1-H1', 'ACC-1-H2']);
    });

    it('keeps calls of the same millisecond in recording order, ascending and descending', async () => {
      // A fixed clock: every call has the same create_time, so only the tie-break orders them.
      const { app } = buildFixture(express, {
        publicBaseUrl: BASE,
        now: () => new Date('2026-11-23T22:00:00.000Z'),
      });
      for (const action of [
        'suspend',
        're-activate',
        'suspend',
        're-activate',
        'suspend',
        're-activate',
      ]) {
        for (const note of ['x', 'y']) {
          await request(app).post(`/v1/accounts/ACC-1/${action}`).send({ note });
        }
      }
      // Twelve calls: H10 … H12 sort before H2 as strings, after it as call numbers.
      const recorded = Array.from({ length: 12 }, (_, i) => `ACC-1-H${i + 1}`);
      const ids = async (query: string) =>
        (await request(app).get(`/v1/accounts/ACC-1/history?page_size=20${query}`)).body.items.map(
          (e: { id: string }) => e.id,
        );
      expect(await ids('&sort_by=create_time&sort_order=asc')).toEqual(recorded);
      expect(await ids('&sort_by=create_time&sort_order=desc')).toEqual([...recorded].reverse());
      expect(await ids('')).toEqual([...recorded].reverse());
      // Filtered, the tie-break still holds.
      expect(await ids('&outcome=NO_CHANGE&sort_by=create_time&sort_order=asc')).toEqual(
        recorded.filter((_, i) => i % 2 === 1),
      );
      // Paged ascending: the pages join up into recording order.
      const pages = [];
      for (const page of [1, 2, 3]) {
        const res = await request(app).get(
          `/v1/accounts/ACC-1/history?page=${page}&page_size=5&sort_by=create_time&sort_order=asc`,
        );
        pages.push(...res.body.items.map((e: { id: string }) => e.id));
      }
      expect(pages).toEqual(recorded);
    });

    it('answers 404 for the history of a missing resource and 400 for a bad page size', async () => {
      const { app } = setup();
      expectErrorEnvelope(await request(app).get('/v1/accounts/NOPE/history'), 404, {
        target: 'account_id',
      });
      expectErrorEnvelope(await request(app).get('/v1/accounts/ACC-1/history?page_size=0'), 400, {
        target: 'page_size',
      });
    });
  });

  describe('bad bodies', () => {
    it.each([
      ['a wrong type', { note: 42 }, 'note'],
      ['a too long value', { note: 'x'.repeat(21) }, 'note'],
      ['an unknown field', { reason: 'x' }, 'reason'],
    ])(
      'answers 400 naming the field for %s, changing and recording nothing',
      async (_, body, target) => {
        const fixture = setup();
        const res = await request(fixture.app).post('/v1/accounts/ACC-1/suspend').send(body);
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', ...(target ? { target } : {}) });
        expect(fixture.accounts.get('ACC-1')?.state).toBe('ACTIVE');
        expect(fixture.calls.suspend).toBeUndefined();
        expect(await fixture.history.count('ACC-1')).toBe(0);
      },
    );

    it('answers 400 for an array or a string body', async () => {
      const { app } = setup();
      for (const body of [[1], '"x"']) {
        const res = await request(app)
          .post('/v1/accounts/ACC-1/suspend')
          .set('Content-Type', 'application/json')
          .send(typeof body === 'string' ? body : JSON.stringify(body));
        expect(res.status).toBe(400);
      }
    });

    it('refuses a body on an action that takes none', async () => {
      const { app } = setup();
      const res = await request(app).post('/v1/accounts/ACC-1/close').send({ now: true });
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expect(res.body.error.innererror).toEqual({ code: 'BODY_NOT_ACCEPTED' });
    });

    // Sent as text: JSON.stringify of an object literal drops a `__proto__` key.
    it.each([
      ['__proto__', '{"note":"x","__proto__":{"polluted":true}}', '__proto__'],
      [
        'constructor',
        '{"note":{"constructor":{"prototype":{"polluted":true}}}}',
        'note.constructor',
      ],
      ['prototype', '{"prototype":1}', 'prototype'],
    ])(
      'refuses a %s key as json-patch-update does, changing and recording nothing',
      async (_key, body, target) => {
        const fixture = setup();
        const res = await request(fixture.app)
          .post('/v1/accounts/ACC-1/suspend')
          .set('Content-Type', 'application/json')
          .send(body);
        expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target });
        expect(res.body.error.innererror).toEqual({ code: 'FORBIDDEN_KEY' });
        expect(fixture.accounts.get('ACC-1')?.state).toBe('ACTIVE');
        expect(await fixture.history.count('ACC-1')).toBe(0);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      },
    );

    it('refuses a body nested deeper than 32 levels, as PUT and PATCH do', async () => {
      const fixture = setup();
      const depth = 30_000;
      const res = await request(fixture.app)
        .post('/v1/accounts/ACC-1/suspend')
        .set('Content-Type', 'application/json')
        .send(`{"note":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expect(res.body.error.innererror).toEqual({ code: 'TOO_DEEP' });
      expect(fixture.accounts.get('ACC-1')?.state).toBe('ACTIVE');
      expect(await fixture.history.count('ACC-1')).toBe(0);
    });
  });

  describe('idempotent repeat', () => {
    it('replays the 200 for a repeated Service-Request-Id and records one call', async () => {
      const fixture = setup();
      const send = () =>
        request(fixture.app)
          .post('/v1/accounts/ACC-1/suspend')
          .set('Service-Request-Id', 'sr-1')
          .send({ note: 'once' });
      const first = await send();
      const again = await send();
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(fixture.calls.suspend).toBe(1);
      expect(await fixture.history.count('ACC-1')).toBe(1);
    });

    it('replays a 204 as a 204', async () => {
      const fixture = setup();
      const send = () =>
        request(fixture.app).post('/v1/accounts/ACC-2/suspend').set('Service-Request-Id', 'sr-2');
      expect((await send()).status).toBe(204);
      expect((await send()).status).toBe(204);
      expect(fixture.calls.suspend).toBe(1);
    });
  });

  describe('concurrent calls', () => {
    it('serialises two calls on one resource: one 200, one 204, both recorded', async () => {
      const fixture = setup();
      const [a, b] = await Promise.all([
        request(fixture.app).post('/v1/accounts/ACC-1/suspend').send({ note: 'a' }),
        request(fixture.app).post('/v1/accounts/ACC-1/suspend').send({ note: 'b' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 204]);
      const history = await request(fixture.app).get('/v1/accounts/ACC-1/history');
      expect(history.body.items.map((e: { outcome: string }) => e.outcome)).toEqual([
        'NO_CHANGE',
        'STATE_CHANGED',
      ]);
      expect(new Set(history.body.items.map((e: { id: string }) => e.id)).size).toBe(2);
    });

    it('honours If-Match with the ETag of the resource GET', async () => {
      const { app } = setup();
      const read = await request(app).get('/v1/accounts/ACC-1');
      const stale = '"not-the-current-version"';
      expectErrorEnvelope(
        await request(app).post('/v1/accounts/ACC-1/suspend').set('If-Match', stale).send({}),
        412,
        { target: 'If-Match' },
      );
      const ok = await request(app)
        .post('/v1/accounts/ACC-1/suspend')
        .set('If-Match', read.headers.etag as string)
        .send({});
      expect(ok.status).toBe(200);
    });
  });
});

describeEachExpress('sub-resource actions, hostile input and failing stores', (express) => {
  it('answers 400 naming Host when links would be built from an invalid one', async () => {
    const { app } = buildFixture(express);
    const res = await request(app).get('/v1/accounts/ACC-1').set('Host', 'bad host<script>');
    expect(res.status).toBe(400);
    const action = await request(app)
      .post('/v1/accounts/ACC-1/suspend')
      .set('Host', 'bad host<script>')
      .send({});
    expectErrorEnvelope(action, 400, { target: 'Host' });
  });

  it('changes nothing when the history store is down', async () => {
    const fixture = buildFixture(express);
    fixture.history.count = () => Promise.reject(new Error('store down'));
    const res = await request(fixture.app).post('/v1/accounts/ACC-1/suspend').send({});
    expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
    expect(fixture.accounts.get('ACC-1')?.state).toBe('ACTIVE');
    expect(fixture.calls.suspend).toBeUndefined();
  });
});

describeEachExpress('sub-resource actions on a resource changed in place', (express) => {
  it('keeps each history record as it was when the call was recorded', async () => {
    interface Account {
      id: string;
      status: { code: string };
    }
    const account: Account = { id: 'A-1', status: { code: 'ACTIVE' } };
    const toggle = (to: string): ActionDefinition<Account, unknown> => ({
      available: () => true,
      perform: ({ resource }) => {
        if (resource.status.code === to) return false;
        // In place: the state object the previous record saw is the one changed here.
        resource.status.code = to;
        return true;
      },
    });
    const actions = subResourceActions<Account, Record<string, unknown>>({
      resource: '/accounts/:id',
      load: (id) => (id === account.id ? account : undefined),
      represent: (current) => ({ ...current }),
      state: (current) => current.status,
      actions: { suspend: toggle('SUSPENDED'), 're-activate': toggle('ACTIVE') },
    });
    const app = express();
    app.use(express.json());
    const router = express.Router();
    mountOperations(router, [actions]);
    app.use('/v1', router);
    await request(app).post('/v1/accounts/A-1/suspend').send({});
    await request(app).post('/v1/accounts/A-1/re-activate').send({});
    const history = await request(app).get(
      '/v1/accounts/A-1/history?sort_by=create_time&sort_order=asc',
    );
    expect(
      history.body.items.map((e: { state_before: unknown; state_after: unknown }) => [
        e.state_before,
        e.state_after,
      ]),
    ).toEqual([
      [{ code: 'ACTIVE' }, { code: 'SUSPENDED' }],
      [{ code: 'SUSPENDED' }, { code: 'ACTIVE' }],
    ]);
  });
});
