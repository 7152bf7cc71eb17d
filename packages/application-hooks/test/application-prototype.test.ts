import { describeEachExpress } from '@resourceful/test-support';
import type { RequestHandler } from 'express';
import request from 'supertest';
import { expect, it } from 'vitest';
import { outermostApplicationPrototype } from '../src/index.js';

describeEachExpress('outermostApplicationPrototype', (express) => {
  it('finds the outermost app’s prototypes from an app mounted with app.use', async () => {
    const app = express();
    const mounted = express();
    const found: unknown[] = [];
    mounted.get('/x', (req, res) => {
      found.push(
        outermostApplicationPrototype(req, 'request'),
        outermostApplicationPrototype(res, 'response'),
      );
      res.end();
    });
    app.use('/m', mounted);
    await request(app).get('/m/x');
    expect(found[0]).toBe(app.request);
    expect(found[1]).toBe(app.response);
  });

  it('finds an app’s own prototypes in an app used as a router’s middleware', async () => {
    const app = express();
    const used = express();
    const found: unknown[] = [];
    used.get('/x', (_req, res) => {
      found.push(outermostApplicationPrototype(res, 'response'));
      res.end();
    });
    const router = express.Router();
    router.use(used as unknown as RequestHandler);
    app.use(router);
    await request(app).get('/x');
    expect(found).toEqual([used.response]);
  });

  it('finds nothing outside Express, or for the wrong kind', () => {
    const app = express();
    const res = Object.create(app.response) as object;
    expect(outermostApplicationPrototype({}, 'response')).toBeUndefined();
    expect(outermostApplicationPrototype(res, 'request')).toBeUndefined();
    expect(outermostApplicationPrototype(res, 'response')).toBe(app.response);
    expect(outermostApplicationPrototype(Object.create(null) as object, 'request')).toBeUndefined();
  });
});
