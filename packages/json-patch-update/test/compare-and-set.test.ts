import { etagFor, StaleVersionError } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { beforeEach, expect, it } from 'vitest';
import { jsonPatchUpdate, putReplace, type SaveContext } from '../src/index.js';

interface Hook {
  id: string;
  url: string;
  create_time?: string;
  update_time?: string;
}

describeEachExpress('with compareAndSet', (express) => {
  let stored: Map<string, Hook>;
  // A writer in another process, landing between this request's load and its save once.
  let interloper: Hook | undefined;
  let saves: number;

  beforeEach(() => {
    stored = new Map([['WH-1', { id: 'WH-1', url: 'https://a.example' }]]);
    interloper = undefined;
    saves = 0;
  });

  /** Stores only while the stored hook is still `previous`, as UPDATE … WHERE etag = $2 does. */
  function save(hook: Hook, context: SaveContext<Hook>) {
    saves++;
    if (interloper !== undefined) {
      stored.set(interloper.id, interloper);
      interloper = undefined;
    }
    const now = stored.get(context.id);
    const holds = context.created
      ? now === undefined
      : now !== undefined && etagFor(now) === etagFor(context.previous);
    if (!holds) throw new StaleVersionError();
    stored.set(context.id, hook);
  }

  function app() {
    const options = {
      load: (id: string) => stored.get(id),
      save,
      compareAndSet: true,
      timestamps: false,
    };
    const app = express();
    app.patch('/hooks/:id', jsonPatchUpdate<Hook>({ ...options, upsert: true }));
    app.put('/hooks/:id', putReplace<Hook>(options));
    app.use(errorHandler());
    return app;
  }

  it('answers 412 when another process changed the resource after the load', async () => {
    interloper = { id: 'WH-1', url: 'https://other.example' };
    const res = await request(app())
      .patch('/hooks/WH-1')
      .set('Content-Type', 'application/json-patch+json')
      .set('If-Match', etagFor({ id: 'WH-1', url: 'https://a.example' }))
      .send([{ op: 'replace', path: '/url', value: 'https://b.example' }]);
    expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
    expect(stored.get('WH-1')?.url).toBe('https://other.example');
    expect(saves).toBe(1);
  });

  it('replaces with PUT when nothing raced', async () => {
    const res = await request(app())
      .put('/hooks/WH-1')
      .set('If-Match', etagFor({ id: 'WH-1', url: 'https://a.example' }))
      .send({ url: 'https://b.example' });
    expect(res.status).toBe(204);
    expect(stored.get('WH-1')).toEqual({ id: 'WH-1', url: 'https://b.example' });
  });

  it('applies a PATCH without If-Match to the newer version', async () => {
    interloper = { id: 'WH-1', url: 'https://other.example' };
    const res = await request(app())
      .patch('/hooks/WH-1')
      .set('Content-Type', 'application/json-patch+json')
      .send([{ op: 'add', path: '/note', value: 'x' }]);
    expect(res.status).toBe(204);
    expect(stored.get('WH-1')).toEqual({ id: 'WH-1', url: 'https://other.example', note: 'x' });
    expect(saves).toBe(2);
  });

  it('answers 412 to a create with If-None-Match: * that another process created first', async () => {
    interloper = { id: 'WH-2', url: 'https://other.example' };
    const res = await request(app())
      .patch('/hooks/WH-2')
      .set('Content-Type', 'application/json-patch+json')
      .set('If-None-Match', '*')
      .send([{ op: 'add', path: '/url', value: 'https://b.example' }]);
    // The insert found the row: the repeated attempt loads it and meets If-None-Match: *.
    expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-None-Match' });
    expect(stored.get('WH-2')?.url).toBe('https://other.example');
  });
});
