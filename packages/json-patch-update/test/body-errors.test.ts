import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { putReplace } from '../src/index.js';

interface Seen {
  type?: unknown;
  status?: unknown;
}

// A body this package reads itself fails with the errors body-parser gives for the same body,
// so an app's error handler (and error-envelope) sees one kind of body error, not two.
describeEachExpress('body errors', (express) => {
  function app(readBy: 'express.json()' | 'putReplace') {
    const seen: Seen[] = [];
    const server = express();
    const handler = putReplace({
      load: () => ({ id: 'T-1' }),
      save: () => {},
      maxBodyBytes: 64,
    });
    if (readBy === 'express.json()')
      server.put('/things/:id', express.json({ limit: 64 }), handler);
    else server.put('/things/:id', handler);
    server.use((err: Seen, _req: unknown, _res: unknown, next: (err: unknown) => void) => {
      seen.push({ type: err.type, status: err.status });
      next(err);
    });
    server.use(errorHandler());
    return { server, seen };
  }

  const cases: [string, (test: request.Test) => request.Test][] = [
    ['a body over the limit', (test) => test.send({ name: 'x'.repeat(100) })],
    [
      'a chunked body over the limit',
      (test) => {
        test.set('Content-Type', 'application/json').set('Transfer-Encoding', 'chunked');
        test.write(`{"name":"${'x'.repeat(100)}"}`);
        return test;
      },
    ],
    [
      'JSON that does not parse',
      (test) => test.set('Content-Type', 'application/json').send('{"a":'),
    ],
    [
      'a charset other than UTF-8',
      (test) => test.set('Content-Type', 'application/json; charset=koi8-r').send('{}'),
    ],
  ];

  describe.each(cases)('for %s', (_name, send) => {
    it('reaches the error handler with the type and status express.json() gives', async () => {
      const ours = app('putReplace');
      const theirs = app('express.json()');
      const mine = await send(request(ours.server).put('/things/T-1'));
      const reference = await send(request(theirs.server).put('/things/T-1'));
      expect(ours.seen).toHaveLength(1);
      expect(ours.seen).toEqual(theirs.seen);
      expect(typeof ours.seen[0]?.type).toBe('string');
      expect(mine.status).toBe(reference.status);
      expect(mine.body.error.code).toBe(reference.body.error.code);
    });
  });
  // body-parser reads an empty body as {}: a PUT would then replace the resource with nothing.
  describe.each(['express.json()', 'putReplace'] as const)(
    'when %s reads an empty body',
    (readBy) => {
      it.each([
        ['Content-Length: 0', (test: request.Test) => test.set('Content-Length', '0').send('')],
        ['no content at all', (test: request.Test) => test],
      ])(
        'answers 400 MALFORMED_REQUEST for %s, as for a body it reads itself',
        async (_name, send) => {
          const { server } = app(readBy);
          const res = await send(
            request(server).put('/things/T-1').set('Content-Type', 'application/json'),
          );
          expect(res.status).toBe(400);
          expect(res.body.error.code).toBe('MALFORMED_REQUEST');
        },
      );
    },
  );
});
