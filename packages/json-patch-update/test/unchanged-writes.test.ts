import { etagFor } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonPatchUpdate } from '../src/index.js';
import { buildApp, type Fixture, seed } from './fixtures.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';

// A write that leaves the resource equal changes neither `update_time` nor the ETag, so every
// other client's If-Match still holds; it answers as any successful write does.
describeEachExpress('writes that change nothing', (express) => {
  let fixture: Fixture;
  beforeEach(() => {
    fixture = { store: seed(), saves: 0 };
  });
  const original = () => seed().get('WH-1');
  const server = () => buildApp(express, fixture);

  async function etagOfGet(app: ReturnType<typeof server>): Promise<string> {
    const res = await request(app).get('/hooks/WH-1');
    expect(res.status).toBe(200);
    return res.headers.etag as string;
  }

  const noOps: [string, string, unknown][] = [
    ['an empty JSON Patch []', JSON_PATCH, []],
    ['an empty merge patch {}', MERGE_PATCH, {}],
    [
      'a JSON Patch setting a field to its current value',
      JSON_PATCH,
      [{ op: 'replace', path: '/url', value: 'https://a.example/hook' }],
    ],
    ['a merge patch setting a field to its current value', MERGE_PATCH, { description: 'orders' }],
    [
      'a JSON Patch of test operations only',
      JSON_PATCH,
      [{ op: 'test', path: '/description', value: 'orders' }],
    ],
    [
      'a JSON Patch that removes and puts back the same value',
      JSON_PATCH,
      [
        { op: 'remove', path: '/description' },
        { op: 'add', path: '/description', value: 'orders' },
      ],
    ],
  ];

  describe.each(noOps)('PATCH with %s', (_name, type, body) => {
    it('answers 204 with the ETag a GET gives, keeps update_time and does not save', async () => {
      const app = server();
      const before = await etagOfGet(app);
      const res = await request(app)
        .patch('/hooks/WH-1')
        .set('Content-Type', type)
        .set('If-Match', before)
        .send(JSON.stringify(body));
      expect(res.status).toBe(204);
      expect(res.headers.etag).toBe(before);
      expect(fixture.store.get('WH-1')).toEqual(original());
      expect(fixture.saves).toBe(0);
      expect(await etagOfGet(app)).toBe(before);
    });

    it('answers 200 with the unchanged resource under Prefer: return=representation', async () => {
      const res = await request(server())
        .patch('/hooks/WH-1')
        .set('Content-Type', type)
        .set('Prefer', 'return=representation')
        .send(JSON.stringify(body));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(original());
    });
  });

  it('still evaluates If-Match: a stale tag answers 412 for a patch that changes nothing', async () => {
    const res = await request(server())
      .patch('/hooks/WH-1')
      .set('Content-Type', JSON_PATCH)
      .set('If-Match', '"stale"')
      .send('[]');
    expect(res.status).toBe(412);
  });

  it('answers PUT of the stored resource itself with 204, keeping update_time and the ETag', async () => {
    const app = server();
    const before = await etagOfGet(app);
    const res = await request(app)
      .put('/hooks/WH-1')
      .set('If-Match', before)
      .send(original() as object);
    expect(res.status).toBe(204);
    expect(fixture.store.get('WH-1')).toEqual(original());
    expect(fixture.saves).toBe(0);
    expect(await etagOfGet(app)).toBe(before);
  });

  it('answers PUT leaving out only the computed fields as a write that changes nothing', async () => {
    const { id: _id, create_time: _c, update_time: _u, ...sent } = original()!;
    const res = await request(server()).put('/hooks/WH-1').send(sent);
    expect(res.status).toBe(204);
    expect(fixture.saves).toBe(0);
    expect(fixture.store.get('WH-1')).toEqual(original());
  });

  it('saves and moves update_time for a patch that changes a value', async () => {
    const app = server();
    const before = await etagOfGet(app);
    const res = await request(app)
      .patch('/hooks/WH-1')
      .set('Content-Type', MERGE_PATCH)
      .send(JSON.stringify({ description: 'refunds' }));
    expect(res.status).toBe(204);
    expect(res.headers.etag).not.toBe(before);
    expect(fixture.saves).toBe(1);
    expect(fixture.store.get('WH-1')?.update_time).not.toBe(original()?.update_time);
  });
  // A schema may turn a string into a Date (`z.coerce.date()`), and a store keep it: two Dates
  // are equal when their times are, not because neither has an own key.
  describe('with a schema whose output holds Dates', () => {
    const Card = z.object({
      id: z.string(),
      valid_until: z.coerce.date(),
      create_time: z.string(),
      update_time: z.string(),
    });
    type Card = z.infer<typeof Card>;

    function cardApp(store: Map<string, Card>) {
      const app = express();
      app.patch(
        '/cards/:id',
        jsonPatchUpdate<Card>({
          load: (id) => store.get(id),
          save: (card) => {
            store.set(card.id, card);
          },
          schema: Card,
        }),
      );
      app.use(errorHandler());
      return app;
    }

    const stored = (): Card => ({
      id: 'CARD-1',
      valid_until: new Date('2030-01-01T00:00:00.000Z'),
      create_time: '2024-01-01T00:00:00.000Z',
      update_time: '2024-01-01T00:00:00.000Z',
    });

    it('saves a patch that changes only a Date', async () => {
      const store = new Map([['CARD-1', stored()]]);
      const res = await request(cardApp(store))
        .patch('/cards/CARD-1')
        .set('Content-Type', JSON_PATCH)
        .send(
          JSON.stringify([
            { op: 'replace', path: '/valid_until', value: '2031-06-30T00:00:00.000Z' },
          ]),
        );
      expect(res.status).toBe(204);
      expect(store.get('CARD-1')?.valid_until.toISOString()).toBe('2031-06-30T00:00:00.000Z');
    });

    // A store (a database driver, an ORM) may hand back a Date and members set to undefined,
    // while the schema outputs the string JSON gives and the patch's copy has no such member:
    // JSON.stringify writes both alike, so the GET's ETag is the same and nothing changed.
    it('does not save a patch that changes nothing of a record holding a Date and an undefined member', async () => {
      const Stored = z.object({
        id: z.string(),
        valid_until: z.string(),
        nickname: z.string().optional(),
        create_time: z.string(),
        update_time: z.string(),
      });
      type Stored = z.infer<typeof Stored>;
      const record = {
        id: 'CARD-1',
        valid_until: new Date('2030-01-01T00:00:00.000Z'),
        nickname: undefined,
        create_time: '2024-01-01T00:00:00.000Z',
        update_time: '2024-01-01T00:00:00.000Z',
      } as unknown as Stored;
      let saves = 0;
      const app = express();
      app.patch(
        '/cards/:id',
        jsonPatchUpdate<Stored>({
          load: () => record,
          save: () => {
            saves++;
          },
          schema: Stored,
        }),
      );
      app.use(errorHandler());
      const res = await request(app)
        .patch('/cards/CARD-1')
        .set('Content-Type', MERGE_PATCH)
        .send(JSON.stringify({ valid_until: '2030-01-01T00:00:00.000Z' }));
      expect(res.status).toBe(204);
      expect(saves).toBe(0);
      expect(res.headers.etag).toBe(etagFor(record));
    });

    it('does not save a patch that sets a Date to the time it holds', async () => {
      const store = new Map([['CARD-1', stored()]]);
      await request(cardApp(store))
        .patch('/cards/CARD-1')
        .set('Content-Type', MERGE_PATCH)
        .send(JSON.stringify({ valid_until: '2030-01-01T00:00:00.000Z' }));
      expect(store.get('CARD-1')?.update_time).toBe('2024-01-01T00:00:00.000Z');
    });
  });
});
