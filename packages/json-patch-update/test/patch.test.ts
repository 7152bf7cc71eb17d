import { etagFor } from '@resourceful/conditional-requests';
import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildApp, CREATED, type Fixture, NOW, seed } from './fixtures.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';

describeEachExpress('jsonPatchUpdate', (express) => {
  let fixture: Fixture;
  beforeEach(() => {
    fixture = { store: seed(), saves: 0 };
  });
  const original = () => seed().get('WH-1');
  const app = (extra?: Parameters<typeof buildApp>[2]) => buildApp(express, fixture, extra);
  const patch = (server: ReturnType<typeof app>, body: unknown, type = JSON_PATCH, id = 'WH-1') =>
    request(server)
      .patch(`/hooks/${id}`)
      .set('Content-Type', type)
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  function expectUnchanged() {
    expect(fixture.store.get('WH-1')).toEqual(original());
    expect(fixture.saves).toBe(0);
  }

  describe('on success', () => {
    it('answers 204 with the new ETag and saves the patched resource', async () => {
      const res = await patch(app(), [
        { op: 'replace', path: '/url', value: 'https://b.example/h' },
      ]);
      expect(res.status).toBe(204);
      const saved = fixture.store.get('WH-1');
      expect(saved?.url).toBe('https://b.example/h');
      expect(res.headers.etag).toBe(etagFor(saved));
      expect(res.text).toBe('');
    });

    it('keeps create_time and sets update_time', async () => {
      await patch(app(), [{ op: 'replace', path: '/url', value: 'https://b.example/h' }]);
      expect(fixture.store.get('WH-1')).toMatchObject({
        create_time: CREATED,
        update_time: NOW.toISOString(),
      });
    });

    it('keeps create_time a store holds as a Date in the form GET sends, which a schema of strings accepts', async () => {
      // pg reads a timestamptz column as a Date; the fixture's schema has create_time: z.string().
      fixture.store.set('WH-1', { ...original(), create_time: new Date(CREATED) } as never);
      const res = await patch(app(), [
        { op: 'replace', path: '/url', value: 'https://b.example/h' },
      ]);
      expect(res.status).toBe(204);
      expect(fixture.store.get('WH-1')?.create_time).toBe(CREATED);
    });

    it('answers 200 with the resource under Prefer: return=representation', async () => {
      const res = await patch(app(), [
        { op: 'add', path: '/event_types/-', value: { name: 'X' } },
      ]).set('Prefer', 'return=representation');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(fixture.store.get('WH-1'));
      expect(res.headers.etag).toBe(etagFor(res.body));
      expect(res.headers['preference-applied']).toBe('return=representation');
      expect(res.headers.vary).toMatch(/Prefer/);
    });

    it('builds the representation and its ETag from the request', async () => {
      const server = buildApp(express, fixture, {
        represent: (hook, req) => ({
          ...hook,
          self: `http://${req.headers.host}/hooks/${hook.id}`,
        }),
      });
      const res = await patch(server, [{ op: 'remove', path: '/description' }]).set(
        'Prefer',
        'return=representation',
      );
      expect(res.status).toBe(200);
      expect(res.body.self).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/WH-1$/);
      expect(res.headers.etag).toBe(etagFor(res.body));
    });

    it('answers 204 with Preference-Applied under Prefer: return=minimal', async () => {
      const res = await patch(app(), [{ op: 'remove', path: '/description' }]).set(
        'Prefer',
        'return=minimal',
      );
      expect(res.status).toBe(204);
      expect(res.headers['preference-applied']).toBe('return=minimal');
    });

    it('gives the ETag that a following GET carries', async () => {
      const server = app();
      const res = await patch(server, [
        { op: 'replace', path: '/url', value: 'https://c.example/h' },
      ]);
      const read = await request(server).get('/hooks/WH-1');
      expect(read.headers.etag).toBe(res.headers.etag);
    });

    it('reads application/json when the body is a JSON Patch array', async () => {
      const res = await patch(
        app(),
        [{ op: 'replace', path: '/url', value: 'https://d.example/h' }],
        'application/json',
      );
      expect(res.status).toBe(204);
      expect(fixture.store.get('WH-1')?.url).toBe('https://d.example/h');
    });

    it('reads a Content-Type with a UTF-8 charset parameter', async () => {
      const res = await patch(
        app(),
        [{ op: 'replace', path: '/url', value: 'https://e.example/h' }],
        `${JSON_PATCH}; charset=UTF-8`,
      );
      expect(res.status).toBe(204);
    });

    it('applies a patch whose paths use ~1 and ~0 escapes', async () => {
      const res = await patch(app(), [
        { op: 'add', path: '/event_types/0/description', value: 'a/b~c' },
        { op: 'test', path: '/event_types/0/description', value: 'a/b~c' },
      ]);
      expect(res.status).toBe(204);
    });
  });

  describe('with a merge patch (RFC 7396)', () => {
    it('merges, removes with null, and answers 204', async () => {
      const res = await patch(
        app(),
        { url: 'https://m.example/h', description: null },
        MERGE_PATCH,
      );
      expect(res.status).toBe(204);
      const saved = fixture.store.get('WH-1');
      expect(saved?.url).toBe('https://m.example/h');
      expect(saved && 'description' in saved).toBe(false);
    });

    it('accepts read-only fields sent back unchanged', async () => {
      const res = await patch(
        app(),
        { id: 'WH-1', create_time: CREATED, url: 'https://n.example/h' },
        MERGE_PATCH,
      );
      expect(res.status).toBe(204);
    });

    it('answers 400 READ_ONLY_FIELD when it changes one', async () => {
      const res = await patch(app(), { id: 'WH-2' }, MERGE_PATCH);
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'id' });
      expectUnchanged();
    });

    it.each([
      ['an array', '[1]'],
      ['a number', '5'],
      ['a string', '"x"'],
      ['null', 'null'],
      ['a boolean', 'true'],
    ])(
      'answers 400 BODY_NOT_AN_OBJECT for a body that is %s, changing nothing',
      async (_name, body) => {
        const res = await patch(app(), body, MERGE_PATCH);
        expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
        expect(res.body.error.innererror).toEqual({ code: 'BODY_NOT_AN_OBJECT' });
        expect(res.body.error.message).toMatch(/merge patch body must be a JSON object/);
        expectUnchanged();
      },
    );

    it('answers 400 BODY_NOT_AN_OBJECT for a non-object body even where it would create (upsert)', async () => {
      const res = await patch(app({ upsert: true }), '[1]', MERGE_PATCH, 'WH-8');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expect(res.body.error.innererror).toEqual({ code: 'BODY_NOT_AN_OBJECT' });
      expect(fixture.store.has('WH-8')).toBe(false);
    });

    it('answers 415 with Accept-Patch when merge patch is switched off', async () => {
      const res = await patch(
        app({ mergePatch: false }),
        { url: 'https://m.example/h' },
        MERGE_PATCH,
      );
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(res.headers['accept-patch']).toBe(JSON_PATCH);
    });
  });

  describe('when the patch is invalid', () => {
    it('answers 400 naming the operation index and changes nothing', async () => {
      const res = await patch(app(), [
        { op: 'replace', path: '/url', value: 'https://b.example/h' },
        { op: 'jump', path: '/url' },
      ]);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '[1].op' });
      expectUnchanged();
    });

    it('changes nothing when a later operation does not resolve', async () => {
      const res = await patch(app(), [
        { op: 'replace', path: '/url', value: 'https://b.example/h' },
        { op: 'remove', path: '/event_types/5' },
      ]);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '[1].path' });
      expectUnchanged();
    });

    it('answers 409 CONFLICT (innererror PATCH_TEST_FAILED) for a failed test operation', async () => {
      const res = await patch(app(), [
        { op: 'test', path: '/url', value: 'https://other.example' },
        { op: 'replace', path: '/url', value: 'https://b.example/h' },
      ]);
      expectErrorEnvelope(res, 409, { code: 'CONFLICT', target: '[0]' });
      expect(res.body.error.innererror).toEqual({ code: 'PATCH_TEST_FAILED' });
      expectUnchanged();
    });

    it('answers 400 VALIDATION_ERROR with details when the result fails the schema', async () => {
      const res = await patch(app(), [
        { op: 'replace', path: '/url', value: 'not a url' },
        { op: 'add', path: '/event_types/-', value: { name: 7 } },
      ]);
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
      expect(res.body.error.details.map((d: { target: string }) => d.target).sort()).toEqual([
        'event_types[1].name',
        'url',
      ]);
      expectUnchanged();
    });

    it.each([
      ['id', { op: 'replace', path: '/id', value: 'WH-2' }, 'id'],
      ['create_time', { op: 'remove', path: '/create_time' }, 'create_time'],
      ['update_time', { op: 'replace', path: '/update_time', value: CREATED }, 'update_time'],
      ['a declared read-only field', { op: 'replace', path: '/secret', value: 'x' }, 'secret'],
      ['a move out of one', { op: 'move', from: '/secret', path: '/url' }, 'secret'],
      ['a copy out of one', { op: 'copy', from: '/id', path: '/url' }, 'id'],
      ['the whole document', { op: 'replace', path: '', value: {} }, 'id'],
    ])('answers 400 READ_ONLY_FIELD for %s', async (_name, operation, target) => {
      const res = await patch(app(), [operation]);
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target });
      expectUnchanged();
    });

    it('answers 400 MALFORMED_REQUEST for a body that is not JSON', async () => {
      const res = await patch(app(), '[{"op":');
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
    });

    it('answers 400 MALFORMED_REQUEST for an empty body', async () => {
      const res = await request(app()).patch('/hooks/WH-1').set('Content-Type', JSON_PATCH);
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
    });

    it('answers 400 when a JSON Patch body is not an array', async () => {
      const res = await patch(app(), { op: 'remove', path: '/url' });
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
    });
  });

  describe('hostile patches', () => {
    it.each(['/__proto__/polluted', '/constructor/prototype/polluted', '/event_types/0/__proto__'])(
      'answers 400 for the path %s and pollutes nothing',
      async (path) => {
        const res = await patch(app(), [{ op: 'add', path, value: true }]);
        expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '[0].path' });
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expectUnchanged();
      },
    );

    it('answers 400 for a __proto__ key in a merge patch', async () => {
      const res = await patch(app(), '{"__proto__":{"polluted":true}}', MERGE_PATCH);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '__proto__' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('answers 413 for more operations than maxOperations', async () => {
      const ops = Array.from({ length: 4 }, () => ({ op: 'test', path: '/id', value: 'WH-1' }));
      const res = await patch(app({ maxOperations: 3 }), ops);
      expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
    });

    it('answers 413 for copies that would multiply the resource, and changes nothing', async () => {
      // Each copy doubles the array; unbounded, 40 of them exhaust the memory of the process.
      const ops = Array.from({ length: 40 }, () => ({
        op: 'copy',
        from: '/event_types',
        path: '/event_types/-',
      }));
      const res = await patch(app(), ops);
      expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
      expect(res.body.error.innererror.code).toBe('COPY_TOO_LARGE');
      expectUnchanged();
    });

    it('answers 400 for an array index with a leading zero, and changes nothing', async () => {
      const res = await patch(app(), [
        { op: 'add', path: '/event_types/01', value: { name: 'X' } },
      ]);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '[0].path' });
      expectUnchanged();
    });

    it('answers 413 for a body over maxBodyBytes', async () => {
      const value = 'x'.repeat(2048);
      const res = await patch(app({ maxBodyBytes: 1024 }), [{ op: 'add', path: '/note', value }]);
      expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
      expectUnchanged();
    });

    it('answers 413 for a chunked body over maxBodyBytes', async () => {
      const server = await listen(app({ maxBodyBytes: 1024 }));
      try {
        const body = new ReadableStream({
          start(controller) {
            for (let i = 0; i < 8; i++)
              controller.enqueue(new TextEncoder().encode(' '.repeat(512)));
            controller.close();
          },
        });
        const res = await fetch(`${server.url}/hooks/WH-1`, {
          method: 'PATCH',
          headers: { 'Content-Type': JSON_PATCH },
          body,
          duplex: 'half',
        } as RequestInit);
        expect(res.status).toBe(413);
      } finally {
        await server.close();
      }
      expectUnchanged();
    });

    it('answers 400 for a value nested deeper than maxDepth', async () => {
      const value = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const res = await patch(app(), `[{"op":"add","path":"/note","value":${value}}]`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expect(res.body.error.innererror.code).toBe('TOO_DEEP');
    });
  });

  describe('unsupported media types', () => {
    it.each([
      ['text/plain', '[]'],
      ['application/xml', '<patch/>'],
      ['application/json', '{"url":"https://b.example/h"}'],
    ])('answers 415 with Accept-Patch for %s', async (type, body) => {
      const res = await patch(app(), body, type);
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
      expect(res.headers['accept-patch']).toBe(`${JSON_PATCH}, ${MERGE_PATCH}`);
      expectUnchanged();
    });

    it('answers 415 when Content-Type is missing', async () => {
      const res = await request(app()).patch('/hooks/WH-1').send(Buffer.from('[]'));
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it('answers 415 for a charset other than UTF-8', async () => {
      const res = await patch(app(), '[]', `${JSON_PATCH}; charset=latin1`);
      expectErrorEnvelope(res, 415, { target: 'Content-Type' });
    });

    it('answers 415 for a compressed body', async () => {
      const res = await patch(app(), '[]').set('Content-Encoding', 'gzip');
      expectErrorEnvelope(res, 415, { target: 'Content-Encoding' });
    });

    it('answers 415 before it evaluates preconditions', async () => {
      const res = await patch(app(), '[]', 'text/plain').set('If-Match', '"stale"');
      expect(res.status).toBe(415);
    });
  });

  describe('preconditions', () => {
    it('applies the patch when If-Match holds', async () => {
      const tag = etagFor(original());
      const res = await patch(app(), [{ op: 'remove', path: '/description' }]).set('If-Match', tag);
      expect(res.status).toBe(204);
    });

    it('answers 412 when If-Match is stale and changes nothing', async () => {
      const res = await patch(app(), [{ op: 'remove', path: '/description' }]).set(
        'If-Match',
        '"stale"',
      );
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
      expect(res.headers.etag).toBeUndefined();
      expectUnchanged();
    });

    it('answers 428 without If-Match when requireIfMatch is on', async () => {
      const res = await patch(app({ requireIfMatch: true }), [
        { op: 'remove', path: '/description' },
      ]);
      expectErrorEnvelope(res, 428, { code: 'PRECONDITION_REQUIRED' });
      expectUnchanged();
    });

    it('answers 412 for If-None-Match: * on an existing resource (never updates)', async () => {
      const res = await patch(app({ upsert: true }), [{ op: 'remove', path: '/description' }]).set(
        'If-None-Match',
        '*',
      );
      expectErrorEnvelope(res, 412, { target: 'If-None-Match' });
      expectUnchanged();
    });

    it('answers 400 for a malformed If-Match', async () => {
      const res = await patch(app(), [{ op: 'remove', path: '/description' }]).set(
        'If-Match',
        'stale',
      );
      expectErrorEnvelope(res, 400, { target: 'If-Match' });
    });

    it('lets exactly one of racing writers with the same If-Match win; the others get 412', async () => {
      const server = await listen(app());
      const tag = etagFor(original());
      try {
        const attempts = Array.from({ length: 6 }, (_, i) =>
          fetch(`${server.url}/hooks/WH-1`, {
            method: 'PATCH',
            headers: { 'Content-Type': JSON_PATCH, 'If-Match': tag },
            body: JSON.stringify([
              { op: 'replace', path: '/url', value: `https://r${i}.example/h` },
            ]),
          }),
        );
        const statuses = (await Promise.all(attempts)).map((res) => res.status).sort();
        expect(statuses).toEqual([204, 412, 412, 412, 412, 412]);
        expect(fixture.saves).toBe(1);
      } finally {
        await server.close();
      }
    });

    it('lets exactly one racer win when each spells the URL of the resource differently', async () => {
      const server = await listen(app());
      const tag = etagFor(original());
      try {
        // Express routes all of these to id WH-1 (case-insensitive, trailing slash, escapes).
        const spellings = [
          '/hooks/WH-1',
          '/HOOKS/WH-1',
          '/hooks/WH-1/',
          '/hooks/WH%2D1',
          '/hooks/%57H-1',
        ];
        const attempts = spellings.map((path, i) =>
          fetch(`${server.url}${path}`, {
            method: 'PATCH',
            headers: { 'Content-Type': JSON_PATCH, 'If-Match': tag },
            body: JSON.stringify([
              { op: 'replace', path: '/url', value: `https://r${i}.example/h` },
            ]),
          }),
        );
        const statuses = (await Promise.all(attempts)).map((res) => res.status).sort();
        expect(statuses).toEqual([204, 412, 412, 412, 412]);
        expect(fixture.saves).toBe(1);
      } finally {
        await server.close();
      }
    });

    it('applies racing writers without If-Match one after the other, losing none', async () => {
      const server = await listen(app());
      try {
        const attempts = Array.from({ length: 5 }, (_, i) =>
          fetch(`${server.url}/hooks/WH-1`, {
            method: 'PATCH',
            headers: { 'Content-Type': JSON_PATCH },
            body: JSON.stringify([{ op: 'add', path: '/event_types/-', value: { name: `E${i}` } }]),
          }),
        );
        const statuses = (await Promise.all(attempts)).map((res) => res.status);
        expect(statuses).toEqual([204, 204, 204, 204, 204]);
        expect(fixture.store.get('WH-1')?.event_types).toHaveLength(6);
      } finally {
        await server.close();
      }
    });
  });

  describe('on a missing resource', () => {
    const create = [
      { op: 'add', path: '/url', value: 'https://new.example/h' },
      { op: 'add', path: '/event_types', value: [] },
    ];

    it('answers 409 without upsert', async () => {
      const res = await patch(app(), create, JSON_PATCH, 'WH-9');
      expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
      expect(fixture.store.has('WH-9')).toBe(false);
    });

    it('answers 409, not 412, without upsert even with If-Match', async () => {
      const res = await patch(app(), create, JSON_PATCH, 'WH-9').set('If-Match', '"x"');
      expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
    });

    // Prisma's findUnique, many drivers and JSON stores answer null for a missing record.
    describe('when load answers null for it', () => {
      const loadNull = { load: async (id: string) => fixture.store.get(id) ?? null };

      it('answers 409 without upsert', async () => {
        const res = await patch(app(loadNull), create, JSON_PATCH, 'WH-9');
        expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
        expect(fixture.store.has('WH-9')).toBe(false);
      });

      it('creates it with upsert', async () => {
        const res = await patch(app({ ...loadNull, upsert: true }), create, JSON_PATCH, 'WH-9');
        expect(res.status).toBe(201);
        expect(fixture.store.get('WH-9')?.url).toBe('https://new.example/h');
      });

      it('answers 404 to a PUT without allowCreate and creates it with allowCreate', async () => {
        const body = { url: 'https://new.example/h', event_types: [] };
        const refused = await request(app(loadNull)).put('/hooks/WH-9').send(body);
        expectErrorEnvelope(refused, 404, { code: 'NOT_FOUND' });
        const created = await request(app({ ...loadNull, allowCreate: true }))
          .put('/hooks/WH-9')
          .send(body);
        expect(created.status).toBe(201);
      });
    });

    it('creates it with upsert: 201, Location, ETag and the body', async () => {
      const res = await patch(app({ upsert: true }), create, JSON_PATCH, 'WH-9');
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe('/hooks/WH-9');
      const saved = fixture.store.get('WH-9');
      expect(saved).toEqual({
        id: 'WH-9',
        url: 'https://new.example/h',
        event_types: [],
        create_time: NOW.toISOString(),
        update_time: NOW.toISOString(),
      });
      expect(res.body).toEqual(saved);
      expect(res.headers.etag).toBe(etagFor(saved));
    });

    it('creates it with a merge patch and upsert', async () => {
      const res = await patch(
        app({ upsert: true }),
        { url: 'https://new.example/h', event_types: [] },
        MERGE_PATCH,
        'WH-8',
      );
      expect(res.status).toBe(201);
      expect(fixture.store.get('WH-8')?.id).toBe('WH-8');
    });

    it('creates it with If-None-Match: *', async () => {
      const res = await patch(app({ upsert: true }), create, JSON_PATCH, 'WH-9').set(
        'If-None-Match',
        '*',
      );
      expect(res.status).toBe(201);
    });

    it('answers 412 with If-Match, since PATCH with If-Match never creates', async () => {
      const res = await patch(app({ upsert: true }), create, JSON_PATCH, 'WH-9').set(
        'If-Match',
        '*',
      );
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED' });
      expect(fixture.store.has('WH-9')).toBe(false);
    });

    it('answers 400 VALIDATION_ERROR when the created resource is incomplete', async () => {
      const res = await patch(app({ upsert: true }), [], JSON_PATCH, 'WH-9');
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
      expect(fixture.store.has('WH-9')).toBe(false);
    });

    it('starts from the initial document', async () => {
      const res = await patch(
        app({ upsert: true, initial: () => ({ event_types: [] }) }),
        [{ op: 'add', path: '/url', value: 'https://i.example/h' }],
        JSON_PATCH,
        'WH-7',
      );
      expect(res.status).toBe(201);
    });
  });

  it('uses a body that express.json() already parsed', async () => {
    const server = express();
    server.use(express.json({ type: ['application/json', 'application/*+json'] }));
    server.use(app());
    const res = await patch(server, [
      { op: 'replace', path: '/url', value: 'https://p.example/h' },
    ]);
    expect(res.status).toBe(204);
    expect(fixture.store.get('WH-1')?.url).toBe('https://p.example/h');
  });

  it('passes an error of save to the error handler once and sends no ETag', async () => {
    const res = await patch(
      app({
        save: () => {
          throw new Error('disk full');
        },
      }),
      [{ op: 'remove', path: '/description' }],
    );
    expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
    expect(res.headers.etag).toBeUndefined();
  });
});
