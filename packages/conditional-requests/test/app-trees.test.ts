import { createServer, ServerResponse } from 'node:http';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import type { RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { conditionalRequests, etagFor, generateETag } from '../src/index.js';

const CARD = { id: 'CARD-1', number: 'xxxxxxxxxxxx1111', state: 'ok' };
const CARD_TAG = etagFor(CARD);

type Answered = { status: number; headers: Record<string, unknown> };

/** The answer is the middleware's: strong tag, 304 for it, 412 for another If-Match. */
async function expectTagged(app: Parameters<typeof request>[0], path: string): Promise<void> {
  const res = await request(app).get(path);
  expect(res.status).toBe(200);
  expect(res.headers.etag).toBe(CARD_TAG);
  expect(res.body).toEqual(CARD);
  const cached: Answered = await request(app).get(path).set('If-None-Match', CARD_TAG);
  expect(cached.status).toBe(304);
  const refused = await request(app).get(path).set('If-Match', '"old"');
  expectErrorEnvelope(refused, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
}

const answerCard: RequestHandler = (_req, res) => {
  res.json(CARD);
};

describeEachExpress('conditionalRequests in an app tree', (express) => {
  it('tags the answers of a sub-app mounted with app.use', async () => {
    const app = express();
    app.use(conditionalRequests());
    const cards = express();
    cards.get('/cards/1', answerCard);
    app.use('/v1', cards);
    app.use(errorHandler());
    await expectTagged(app, '/v1/cards/1');
  });

  it('replaces no method on the response itself', async () => {
    const app = express();
    app.use(conditionalRequests());
    const cards = express();
    let own: string[] = [];
    cards.get('/cards/1', (_req, res) => {
      own = ['json', 'send', 'end'].filter((name) => Object.hasOwn(res, name));
      res.json(CARD);
    });
    app.use('/v1', cards);
    expect((await request(app).get('/v1/cards/1')).headers.etag).toBe(CARD_TAG);
    expect(own).toEqual([]);
  });

  it('tags the answers of an app used as a handler without app.use when it mounts its own', async () => {
    // Not mounted, such an app gives the response a prototype that inherits nothing from the
    // app it runs in (Express's mount is what links them): a conditionalRequests() inside it
    // hooks its answers.
    const app = express();
    const cards = express();
    cards.use(conditionalRequests());
    cards.get('/cards/1', answerCard);
    cards.use(errorHandler());
    const v1 = express.Router();
    v1.use(cards);
    app.use('/v1', v1);
    await expectTagged(app, '/v1/cards/1');
  });

  it('tags the answers of a sub-app two levels down', async () => {
    const app = express();
    app.use(conditionalRequests());
    const v1 = express();
    const cards = express();
    cards.get('/1', answerCard);
    v1.use('/cards', cards);
    app.use('/v1', v1);
    app.use(errorHandler());
    await expectTagged(app, '/v1/cards/1');
  });

  it('tags an answer of the parent app after the sub-app it is mounted in passes the request on', async () => {
    const app = express();
    const v1 = express();
    v1.use(conditionalRequests());
    v1.get('/other', answerCard);
    app.use('/v1', v1);
    // Express restores the parent's response prototype when the sub-app calls next().
    app.get('/v1/cards/1', answerCard);
    app.use(errorHandler());
    await expectTagged(app, '/v1/cards/1');
  });

  it('tags the answers of a sub-app mounted after the first request', async () => {
    const app = express();
    app.use(conditionalRequests());
    app.get('/cards/1', answerCard);
    const later = express();
    later.get('/cards/1', answerCard);
    expect((await request(app).get('/cards/1')).headers.etag).toBe(CARD_TAG);
    app.use('/later', later);
    app.use(errorHandler());
    await expectTagged(app, '/later/cards/1');
  });

  it('keeps the methods another middleware replaced on the response before it, and runs them', async () => {
    const app = express();
    app.use(function stampJson(_req, res, next) {
      const json = res.json;
      res.json = function stampedJson(this: typeof res, value?: unknown) {
        this.setHeader('X-Stamped', 'yes');
        return json.call(this, value);
      };
      next();
    });
    app.use(conditionalRequests());
    app.get('/cards/1', answerCard);
    app.use(errorHandler());
    await expectTagged(app, '/cards/1');
    expect((await request(app).get('/cards/1')).headers['x-stamped']).toBe('yes');
  });

  it('runs a res.end another middleware replaces after it, before tagging, as before', async () => {
    const app = express();
    app.use(conditionalRequests());
    const seen: string[] = [];
    app.use(function watchEnd(_req, res, next) {
      const end = res.end;
      res.end = function watchedEnd(this: typeof res, ...args: unknown[]) {
        seen.push(String(this.getHeader('ETag')));
        return Reflect.apply(end, this, args);
      } as typeof res.end;
      next();
    });
    app.get('/cards/1', answerCard);
    app.use(errorHandler());
    await expectTagged(app, '/cards/1');
    // Express's res.send calls the outer end (the watcher's) after the tag is set.
    expect(seen[0]).toBe(CARD_TAG);
  });

  it('uses the methods an app defines on its own response', async () => {
    const app = express();
    const json = express.response.json;
    app.response.json = function ownJson(this: typeof app.response, value?: unknown) {
      this.setHeader('X-Own', 'yes');
      return json.call(this, value);
    };
    app.use(conditionalRequests());
    app.get('/cards/1', answerCard);
    app.use(errorHandler());
    await expectTagged(app, '/cards/1');
    expect((await request(app).get('/cards/1')).headers['x-own']).toBe('yes');
  });

  it('leaves the answers of routes before it to Express', async () => {
    const app = express();
    app.get('/early', answerCard);
    app.use(conditionalRequests());
    app.get('/cards/1', answerCard);
    expect((await request(app).get('/cards/1')).headers.etag).toBe(CARD_TAG);
    const early = await request(app).get('/early');
    expect(early.headers.etag).toMatch(/^W\//);
    expect((await request(app).get('/early').set('If-Match', '"old"')).status).toBe(200);
  });

  it("changes neither Express's nor Node's shared response methods, nor another app", async () => {
    const shared = [express.response.json, express.response.send, ServerResponse.prototype.end];
    const app = express();
    app.use(conditionalRequests());
    app.get('/cards/1', answerCard);
    await expectTagged(app, '/cards/1');
    expect([express.response.json, express.response.send, ServerResponse.prototype.end]).toEqual(
      shared,
    );
    const other = express();
    other.get('/cards/1', answerCard);
    expect((await request(other).get('/cards/1')).headers.etag).toMatch(/^W\//);
  });

  it('tags once when the same middleware is mounted twice on one response', async () => {
    const tagger = conditionalRequests();
    const app = express();
    app.use(tagger);
    const v1 = express.Router();
    v1.use(tagger);
    v1.get('/cards/1', answerCard);
    app.use('/v1', v1);
    app.use(errorHandler());
    await expectTagged(app, '/v1/cards/1');
  });
});

describe('conditionalRequests without Express', () => {
  it('tags a body written with res.end and answers 304 for it', async () => {
    const tagger = conditionalRequests();
    const server = await listen(
      createServer((req, res) => {
        tagger(req, res, () => {
          res.setHeader('Content-Type', 'text/plain');
          res.end('hello');
        });
      }),
    );
    try {
      const res = await fetch(`${server.url}/plain`);
      expect(res.headers.get('etag')).toBe(generateETag('hello'));
      expect(await res.text()).toBe('hello');
      const cached = await fetch(`${server.url}/plain`, {
        headers: { 'If-None-Match': generateETag('hello') },
      });
      expect(cached.status).toBe(304);
    } finally {
      await server.close();
    }
  });
});
