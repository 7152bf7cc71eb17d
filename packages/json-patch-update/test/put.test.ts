import { etagFor } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { putReplace } from '../src/index.js';
import { buildApp, CREATED, type Fixture, NOW, seed, type Webhook } from './fixtures.js';

describeEachExpress('putReplace', (express) => {
  let fixture: Fixture;
  beforeEach(() => {
    fixture = { store: seed(), saves: 0 };
  });
  const original = () => seed().get('WH-1');
  const app = (extra?: Parameters<typeof buildApp>[2]) => buildApp(express, fixture, extra);
  const put = (server: ReturnType<typeof app>, body: unknown, id = 'WH-1') =>
    request(server)
      .put(`/hooks/${id}`)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  const replacement = { url: 'https://b.example/h', event_types: [{ name: 'X' }] };

  function expectUnchanged() {
    expect(fixture.store.get('WH-1')).toEqual(original());
    expect(fixture.saves).toBe(0);
  }

  describe('on an existing resource', () => {
    it('answers 204 without ETag and clears the properties not sent', async () => {
      const res = await put(app(), replacement);
      expect(res.status).toBe(204);
      expect(res.headers.etag).toBeUndefined();
      const saved = fixture.store.get('WH-1');
      expect(saved).toEqual({
        id: 'WH-1',
        ...replacement,
        // secret is read-only: left out, it keeps its value.
        secret: 's3cret',
        create_time: CREATED,
        update_time: NOW.toISOString(),
      });
      expect(saved && 'description' in saved).toBe(false);
    });

    it('answers 200 with the resource and its ETag under Prefer: return=representation', async () => {
      const res = await put(app(), replacement).set('Prefer', 'return=representation');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(fixture.store.get('WH-1'));
      expect(res.headers.etag).toBe(etagFor(res.body));
      expect(res.headers['preference-applied']).toBe('return=representation');
    });

    it('accepts read-only and computed fields sent back unchanged', async () => {
      const res = await put(app(), { ...original(), url: 'https://c.example/h' });
      expect(res.status).toBe(204);
      expect(fixture.store.get('WH-1')?.update_time).toBe(NOW.toISOString());
    });

    it('accepts the computed fields sent back as GET gave them when the store holds Dates', async () => {
      // pg reads a timestamptz column as a Date; GET sends its JSON form.
      const stored = { ...original(), create_time: new Date(CREATED) } as unknown as Webhook;
      fixture.store.set('WH-1', stored);
      const server = app({ schema: undefined });
      const read = await request(server).get('/hooks/WH-1');
      const res = await put(server, { ...read.body, url: 'https://c.example/h' });
      expect(res.status).toBe(204);
      expect(fixture.store.get('WH-1')?.url).toBe('https://c.example/h');
    });

    it('keeps create_time a store holds as a Date in the form GET sends, which a schema of strings accepts', async () => {
      fixture.store.set('WH-1', { ...original(), create_time: new Date(CREATED) } as never);
      const res = await put(app(), replacement);
      expect(res.status).toBe(204);
      expect(fixture.store.get('WH-1')?.create_time).toBe(CREATED);
    });

    it.each([
      ['a declared read-only field', { secret: 'other' }, 'secret'],
      ['create_time', { create_time: '2020-01-01T00:00:00.000Z' }, 'create_time'],
      ['update_time', { update_time: '2020-01-01T00:00:00.000Z' }, 'update_time'],
      ['id', { id: 'WH-2' }, 'id'],
    ])('answers 400 READ_ONLY_FIELD when %s changes', async (_name, change, target) => {
      const res = await put(app(), { ...replacement, ...change });
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target });
      expectUnchanged();
    });

    it('answers 400 VALIDATION_ERROR when the resource is invalid', async () => {
      const res = await put(app(), { url: 'nope' });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
      expectUnchanged();
    });

    it('answers 412 for a stale If-Match', async () => {
      const res = await put(app(), replacement).set('If-Match', '"stale"');
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED' });
      expectUnchanged();
    });

    it('replaces when If-Match holds', async () => {
      const res = await put(app(), replacement).set('If-Match', etagFor(original()));
      expect(res.status).toBe(204);
    });

    it('answers 428 without If-Match when requireIfMatch is on', async () => {
      const res = await put(app({ requireIfMatch: true }), replacement);
      expectErrorEnvelope(res, 428, { code: 'PRECONDITION_REQUIRED' });
    });

    it('lets exactly one of racing writers with the same If-Match win, however each spells the URL', async () => {
      const server = await listen(app());
      try {
        const spellings = ['/hooks/WH-1', '/hooks/WH-1', '/HOOKS/WH-1/', '/hooks/WH%2D1'];
        const attempts = spellings.map((path, i) =>
          fetch(`${server.url}${path}`, {
            method: 'PUT',
            headers: { 'Content-Type': 'application/json', 'If-Match': etagFor(original()) },
            body: JSON.stringify({ ...replacement, url: `https://r${i}.example/h` }),
          }),
        );
        const statuses = (await Promise.all(attempts)).map((res) => res.status).sort();
        expect(statuses).toEqual([204, 412, 412, 412]);
        expect(fixture.saves).toBe(1);
      } finally {
        await server.close();
      }
    });
  });

  describe('on a missing id', () => {
    it('answers 404 unless the resource allows client ids', async () => {
      const res = await put(app(), replacement, 'WH-9');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
      expect(fixture.store.has('WH-9')).toBe(false);
    });

    it('creates it with allowCreate: 201, Location, ETag and the body', async () => {
      const res = await put(app({ allowCreate: true }), replacement, 'WH-9');
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe('/hooks/WH-9');
      const saved = fixture.store.get('WH-9');
      expect(saved).toEqual({
        id: 'WH-9',
        ...replacement,
        create_time: NOW.toISOString(),
        update_time: NOW.toISOString(),
      });
      expect(res.body).toEqual(saved);
      expect(res.headers.etag).toBe(etagFor(saved));
    });

    it('creates it with 201 and no body under Prefer: return=minimal', async () => {
      const res = await put(app({ allowCreate: true }), replacement, 'WH-9').set(
        'Prefer',
        'return=minimal',
      );
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe('/hooks/WH-9');
      expect(res.text).toBe('');
    });

    it('sets the computed fields itself, ignoring the ones sent', async () => {
      await put(
        app({ allowCreate: true }),
        { ...replacement, create_time: '1999-01-01T00:00:00Z' },
        'WH-9',
      );
      expect(fixture.store.get('WH-9')?.create_time).toBe(NOW.toISOString());
    });

    it('answers 400 READ_ONLY_FIELD when the body id differs from the path', async () => {
      const res = await put(app({ allowCreate: true }), { ...replacement, id: 'WH-1' }, 'WH-9');
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'id' });
      expect(fixture.store.has('WH-9')).toBe(false);
    });

    it('answers 412 with If-Match', async () => {
      const res = await put(app({ allowCreate: true }), replacement, 'WH-9').set('If-Match', '*');
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED' });
    });
  });

  describe('with a nested read-only pointer', () => {
    interface Card {
      id: string;
      billing?: { city?: string; country?: unknown };
    }
    function cardApp(cards: Map<string, Card>) {
      const server = express();
      server.put(
        '/cards/:id',
        putReplace<Card>({
          load: (id) => cards.get(id),
          save: (card) => void cards.set(card.id, card),
          readOnly: ['/billing/country'],
          timestamps: false,
        }),
      );
      server.use(errorHandler());
      return server;
    }
    const stored = (): Card => ({ id: 'C', billing: { city: 'Paris', country: 'FR' } });

    it('keeps the stored value when the body leaves it out, creating its parent', async () => {
      const cards = new Map([['C', stored()]]);
      const res = await request(cardApp(cards)).put('/cards/C').send({});
      expect(res.status).toBe(204);
      expect(cards.get('C')).toEqual({ id: 'C', billing: { country: 'FR' } });
    });

    it('answers 400 READ_ONLY_FIELD when the body puts a scalar in place of its parent', async () => {
      const cards = new Map([['C', stored()]]);
      const res = await request(cardApp(cards)).put('/cards/C').send({ billing: 'none' });
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'billing.country' });
      expect(cards.get('C')).toEqual(stored());
    });
  });

  describe('bad bodies', () => {
    it('answers 400 INVALID_REQUEST for an array body', async () => {
      const res = await put(app(), '[]');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expectUnchanged();
    });

    // express.json() (strict) refuses these itself, before putReplace reads them.
    it.each([['"text"'], ['null'], ['7']])('answers 400 for the body %s', async (body) => {
      const res = await put(app(), body);
      expectErrorEnvelope(res, 400);
      expectUnchanged();
    });

    it('answers 400 INVALID_REQUEST for a scalar body it reads itself', async () => {
      const server = express();
      server.put(
        '/raw/:id',
        putReplace({ load: () => undefined, save: () => undefined, allowCreate: true }),
      );
      server.use(errorHandler());
      const res = await request(server)
        .put('/raw/1')
        .set('Content-Type', 'application/json')
        .send('7');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
    });

    it('answers 400 MALFORMED_REQUEST for invalid JSON', async () => {
      const res = await put(app(), '{"url": ');
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
    });

    it('answers 415 for a body that is not application/json', async () => {
      const res = await request(app())
        .put('/hooks/WH-1')
        .set('Content-Type', 'application/merge-patch+json')
        .send('{}');
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
    });

    it('answers 400 for a __proto__ key and pollutes nothing', async () => {
      const res = await put(
        app(),
        '{"url":"https://b.example/h","event_types":[],"__proto__":{"polluted":1}}',
      );
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '__proto__' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expectUnchanged();
    });
  });
});
