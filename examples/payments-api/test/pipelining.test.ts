/**
 * `oneRequestAtATimePerConnection` on its own, with routes that take time the way a database
 * does: pipelined requests on one connection run one after the other, each when the one before
 * has been answered; separate connections are not held up by each other.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import {
  describeEachExpress,
  listen,
  parseRawResponses,
  type RunningServer,
  rawExchange,
  waitFor,
} from '@resourceful/test-support';
import type { NextFunction, Request, Response } from 'express';
import { afterEach, expect, it } from 'vitest';
import { oneRequestAtATimePerConnection } from '../src/pipelining.js';

describeEachExpress('one request at a time per connection', (express) => {
  let running: RunningServer | undefined;
  let events: string[];
  /** Resolves the pending `/slow` answers, in order. */
  let release: (() => void)[];

  afterEach(async () => {
    for (const answer of release.splice(0)) answer();
    await running?.close();
    running = undefined;
  });

  function sameEvents(expected: readonly string[]): boolean {
    return events.length === expected.length && events.every((event, i) => event === expected[i]);
  }

  async function start(): Promise<RunningServer> {
    events = [];
    release = [];
    const app = express();
    app.use(oneRequestAtATimePerConnection);
    // Answers when the test releases it (a database query in flight).
    app.get('/slow/:name', (req: Request, res: Response) => {
      const name = String(req.params.name);
      events.push(`start ${name}`);
      release.push(() => {
        events.push(`end ${name}`);
        res.json({ name });
      });
    });
    app.get('/fast/:name', (req: Request, res: Response, _next: NextFunction) => {
      const name = String(req.params.name);
      events.push(`start ${name}`);
      events.push(`end ${name}`);
      res.json({ name });
    });
    running = await listen(createServer(app) as Server);
    return running;
  }

  it('starts each pipelined request once the one before it has been answered', async () => {
    const server = await start();
    const exchange = rawExchange(
      server.port,
      'GET /slow/a HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /slow/b HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /fast/c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    await waitFor(() => sameEvents(['start a']), { what: `events ${JSON.stringify(['start a'])}` });
    release.shift()!();
    await waitFor(() => sameEvents(['start a', 'end a', 'start b']), {
      what: `events ${JSON.stringify(['start a', 'end a', 'start b'])}`,
    });
    release.shift()!();
    const responses = parseRawResponses((await exchange).text, ['GET', 'GET', 'GET']);
    expect(responses.map((response) => response.body)).toEqual([
      '{"name":"a"}',
      '{"name":"b"}',
      '{"name":"c"}',
    ]);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('answers a deep pipeline in order without piling listeners on the connection', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const server = await start();
      const names = Array.from({ length: 30 }, (_, index) => `r${index}`);
      const exchange = await rawExchange(
        server.port,
        names
          .map(
            (name, index) =>
              `GET /fast/${name} HTTP/1.1\r\nHost: x\r\n${index === names.length - 1 ? 'Connection: close\r\n' : ''}\r\n`,
          )
          .join(''),
      );
      const responses = parseRawResponses(
        exchange.text,
        names.map(() => 'GET'),
      );
      expect(responses.map((response) => response.body)).toEqual(
        names.map((name) => `{"name":"${name}"}`),
      );
      expect(events).toEqual(names.flatMap((name) => [`start ${name}`, `end ${name}`]));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual(
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('does not hold up a request on another connection', async () => {
    const server = await start();
    const first = rawExchange(server.port, 'GET /slow/a HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => sameEvents(['start a']), { what: `events ${JSON.stringify(['start a'])}` });
    const other = await fetch(`${server.url}/fast/b`, { headers: { connection: 'close' } });
    expect(await other.json()).toEqual({ name: 'b' });
    expect(events).toEqual(['start a', 'start b', 'end b']);
    release.shift()!();
    // rawExchange keeps the connection open until the server closes it: end it from here.
    await waitFor(() => events.includes('end a'), { what: 'the end of a' });
    await running?.close();
    running = undefined;
    expect(parseRawResponses((await first).text, ['GET'])[0]?.body).toBe('{"name":"a"}');
  });

  it('starts the waiting requests when the client goes away, and answers nothing more', async () => {
    const server = await start();
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('GET /slow/a HTTP/1.1\r\nHost: x\r\n\r\nGET /fast/b HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => sameEvents(['start a']), { what: `events ${JSON.stringify(['start a'])}` });
    socket.destroy();
    await waitFor(() => sameEvents(['start a', 'start b', 'end b']), {
      what: `events ${JSON.stringify(['start a', 'start b', 'end b'])}`,
    });
  });
});
