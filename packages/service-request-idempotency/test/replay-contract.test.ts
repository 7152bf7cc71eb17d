import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeEachExpress, expectReplayOf } from '@resourceful/test-support';
import request from 'supertest';
import { expect, it } from 'vitest';
import { serviceRequestIdempotency } from '../src/index.js';

/**
 * Mounted before the idempotency middleware, as content negotiation or conditional-requests
 * are: derives `Content-Digest` (RFC 9530) from the bytes the answer ends with, for every answer.
 */
function contentDigest(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const end = res.end;
  res.end = function endWithDigest(this: ServerResponse, ...args: unknown[]) {
    const [chunk] = args;
    if ((typeof chunk === 'string' || chunk instanceof Uint8Array) && !this.headersSent) {
      const digest = createHash('sha256').update(chunk).digest('base64');
      this.setHeader('Content-Digest', `sha-256=:${digest}:`);
    }
    return Reflect.apply(end, this, args) as ServerResponse;
  } as ServerResponse['end'];
  next();
}

describeEachExpress('what a replay reproduces', (express) => {
  function app() {
    const app = express();
    let runs = 0;
    app.use(express.json());
    app.use(contentDigest);
    app.use(serviceRequestIdempotency());
    app.post('/v1/evaluate', (_req, res) => {
      runs += 1;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ status: 'VALID', runs }));
    });
    app.post('/v1/things', (_req, res) => {
      runs += 1;
      res.status(201).location(`/v1/things/${runs}`).set('ETag', `"${runs}"`).json({ id: runs });
    });
    return app;
  }

  it.each(['/v1/evaluate', '/v1/things'])(
    'replays %s with the header set of the first answer, the outer middleware run again',
    async (path) => {
      const server = app();
      const send = () => request(server).post(path).set('Service-Request-Id', 'c-1').send({});
      const first = await send();
      expect(first.headers['content-digest']).toMatch(/^sha-256=:/);
      expectReplayOf(first, await send());
    },
  );

  it('adds no header the first answer did not have', async () => {
    const server = app();
    const send = () =>
      request(server).post('/v1/evaluate').set('Service-Request-Id', 'c-2').send({});
    const first = await send();
    const again = await send();
    const added = Object.keys(again.headers).filter((name) => !(name in first.headers));
    expect(added).toEqual(['idempotent-replayed']);
  });
});
