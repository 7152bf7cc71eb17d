/**
 * `responseDate()` stamps `Date` from the `writeHead` that @resourceful/application-hooks
 * defines on the app's outermost `app.response`; that function hands on to the `writeHead` it
 * shadows, so another package's hook below it (here: another copy of the module, as each
 * package bundles its own) still runs, in either order and wherever the answer is written.
 */
import type { ServerResponse } from 'node:http';
import { describeEachExpress } from '@resourceful/test-support';
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { beforeAll, expect, it, vi } from 'vitest';
import { responseDate } from '../src/index.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type BeforeHeaders = (
  res: ServerResponse,
  run: (res: ServerResponse, state: undefined) => void,
  state: undefined,
) => void;

describeEachExpress('responseDate with another package’s header hook', (express) => {
  let otherCopy: BeforeHeaders;

  beforeAll(async () => {
    vi.resetModules();
    ({ beforeHeaders: otherCopy } = await import('@resourceful/application-hooks'));
  });

  const otherHook: RequestHandler = function otherHook(_req, res, next) {
    otherCopy(res, (hooked) => hooked.setHeader('X-Other-Hook', 'ran'), undefined);
    next();
  };

  function withRoutes(app: Express): Express {
    app.get('/here', (_req, res) => {
      res.json({});
    });
    const mounted = express();
    mounted.get('/card', (_req, res) => {
      res.json({});
    });
    app.use('/mounted', mounted);
    const used = express();
    used.get('/used/card', (_req, res) => {
      res.json({});
    });
    const router = express.Router();
    router.use(used as unknown as RequestHandler);
    app.use(router);
    return app;
  }

  for (const [title, order] of [
    ['responseDate first', (app: Express) => app.use(responseDate(), otherHook)],
    ['the other hook first', (app: Express) => app.use(otherHook, responseDate())],
  ] as const) {
    it(`runs both hooks, ${title}, wherever the answer is written`, async () => {
      const app = express();
      order(app);
      withRoutes(app);
      for (const path of ['/here', '/mounted/card', '/used/card', '/here']) {
        const answer = await request(app).get(path);
        expect(answer.status, path).toBe(200);
        expect(answer.headers.date, path).toMatch(RFC3339);
        expect(answer.headers['x-other-hook'], path).toBe('ran');
      }
    });
  }

  it('adds no writeHead to the responses and none to Express’s own prototype', async () => {
    const app = express();
    let own: boolean | undefined;
    app.use(responseDate(), otherHook);
    app.get('/', (_req, res) => {
      own = Object.hasOwn(res, 'writeHead');
      res.end();
    });
    const answer = await request(app).get('/');
    expect(answer.headers.date).toMatch(RFC3339);
    expect(own).toBe(false);
    expect(Object.hasOwn(express.response, 'writeHead')).toBe(false);
  });
});
