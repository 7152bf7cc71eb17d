import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import {
  attachServerErrorHandlers,
  clientErrorHandler,
  errorHandler,
} from '@resourceful/error-envelope';
import { describeEachExpress, listen, type RunningServer } from '@resourceful/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnswerUrlOverflowOptions,
  answerUrlOverflow,
  type LimitUrlLengthOptions,
  limitUrlLength,
  uriTooLong,
} from '../src/index.js';

const MAX_URL = 40 * 1024;
const MAX_HEADER_SIZE = 64 * 1024;

/** Sends `text` on a raw socket and reads until the server closes or answers in full. */
function rawExchange(
  port: number,
  text: string,
): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const response = Buffer.concat(chunks).toString('latin1');
      const end = response.indexOf('\r\n\r\n');
      resolve({
        status: Number(response.slice(9, 12)),
        headers: response.slice(0, end),
        body: response.slice(end + 4),
      });
    });
    socket.write(text, () => socket.end());
  });
}

describeEachExpress('long URLs', (express) => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  async function start(): Promise<RunningServer> {
    const app = express();
    app.use(limitUrlLength({ maxLength: MAX_URL }));
    app.get('/items', (req, res) => res.json({ length: req.originalUrl.length }));
    app.use(errorHandler());
    const server: Server = createServer({ maxHeaderSize: MAX_HEADER_SIZE }, app);
    // Takes over the clientError listener the error envelope registered.
    answerUrlOverflow(attachServerErrorHandlers(server), { maxLength: MAX_URL });
    expect(server.listeners('clientError')).toHaveLength(1);
    running = await listen(server);
    return running;
  }

  it('serves a 32 kB URL end to end', async () => {
    const { url } = await start();
    const path = `/items?q=${'a'.repeat(32 * 1024)}`;
    const res = await fetch(url + path);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ length: path.length });
  });

  it('answers 414 for a URL over the limit that Node still parsed', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/items?q=${'a'.repeat(50 * 1024)}`);
    expect(res.status).toBe(414);
    expect(await res.json()).toEqual({
      error: {
        code: 'URI_TOO_LONG',
        message: `The request URL is longer than ${MAX_URL} characters.`,
        innererror: { code: 'URL_TOO_LONG', max_length: MAX_URL },
      },
    });
  });

  it('answers 414 over a raw socket when the request line alone exceeds the parser limit', async () => {
    const { port } = await start();
    const res = await rawExchange(
      port,
      `GET /items?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    expect(res.status).toBe(414);
    expect(res.headers).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(res.headers).toMatch(/\r\nConnection: close/);
    expect(JSON.parse(res.body).error.code).toBe('URI_TOO_LONG');
  });

  it('gives the raw 414 a new request id, in its header and its envelope, and an RFC 3339 Date', async () => {
    const { port } = await start();
    const line = `GET /items?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    const [first, second] = [await rawExchange(port, line), await rawExchange(port, line)];
    for (const res of [first, second]) {
      const id = /\r\nX-Request-Id: ([0-9a-f-]{36})\r\n/.exec(res.headers)?.[1];
      expect(id, res.headers).toBeDefined();
      expect(JSON.parse(res.body).error.innererror).toEqual({
        code: 'URL_TOO_LONG',
        max_length: MAX_URL,
        request_id: id,
      });
      expect(res.headers).toMatch(/\r\nDate: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\r\n/);
    }
    expect(first.headers).not.toBe(second.headers);
  });

  it('sends the raw 414 under the configured request id header and Date form, or without them', async () => {
    const app = express();
    const server = createServer({ maxHeaderSize: MAX_HEADER_SIZE }, app);
    answerUrlOverflow(attachServerErrorHandlers(server), {
      maxLength: MAX_URL,
      requestIdHeader: 'Request-Id',
      dateFormat: 'imf-fixdate',
    });
    running = await listen(server);
    const line = `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const named = await rawExchange(running.port, line);
    expect(named.headers).toMatch(/\r\nRequest-Id: [0-9a-f-]{36}\r\n/);
    expect(named.headers).not.toMatch(/X-Request-Id/);
    expect(named.headers).toMatch(/\r\nDate: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/);
    await running.close();

    const bare = createServer({ maxHeaderSize: MAX_HEADER_SIZE }, express());
    answerUrlOverflow(attachServerErrorHandlers(bare), {
      maxLength: MAX_URL,
      requestIdHeader: false,
      dateFormat: false,
    });
    running = await listen(bare);
    const plain = await rawExchange(running.port, line);
    expect(plain.status).toBe(414);
    expect(plain.headers).not.toMatch(/Request-Id|\r\nDate:/i);
    expect(JSON.parse(plain.body).error.innererror).toEqual({
      code: 'URL_TOO_LONG',
      max_length: MAX_URL,
    });
  });

  it('answers 414 for a request line arriving in small pieces', async () => {
    const { port } = await start();
    const res = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.on('error', reject);
      socket.write('GET /items?q=');
      const piece = 'b'.repeat(8 * 1024);
      let sent = 0;
      const more = () => {
        // bounded: 12 pieces of 8 KiB, past the 64 KiB parser limit
        if (sent++ < 12 && !socket.destroyed) socket.write(piece, more);
      };
      more();
    });
    expect(res.slice(9, 12)).toBe('414');
  });

  it('still answers 431 with the envelope for headers that are too large', async () => {
    const { port } = await start();
    for (const text of [
      `GET /items HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'p'.repeat(100_000)}\r\n\r\n`,
      `GET /items?q=${'a'.repeat(30_000)} HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'p'.repeat(40_000)}\r\n\r\n`,
    ]) {
      const res = await rawExchange(port, text);
      expect(res.status).toBe(431);
      expect(JSON.parse(res.body).error.code).toBe('HEADERS_TOO_LARGE');
    }
  });

  it('answers through an explicit otherwise listener too', async () => {
    const app = express();
    const server = createServer({ maxHeaderSize: MAX_HEADER_SIZE }, app);
    answerUrlOverflow(server, { otherwise: clientErrorHandler(), maxLength: MAX_URL });
    running = await listen(server);
    const tooLong = await rawExchange(running.port, `GET /${'a'.repeat(100_000)} HTTP/1.1\r\n\r\n`);
    expect(tooLong.status).toBe(414);
    const malformed = await rawExchange(running.port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(malformed.status).toBe(400);
  });

  it('hands other parser errors to the fallback', async () => {
    const { port } = await start();
    const res = await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('INVALID_REQUEST');
  });

  it('keeps serving keep-alive requests on a tracked connection', async () => {
    const { port } = await start();
    const res = await rawExchange(
      port,
      'GET /items HTTP/1.1\r\nHost: x\r\n\r\nGET /items?b=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(res.status).toBe(200);
    expect(res.body.match(/HTTP\/1\.1 200/g)).toHaveLength(1);
  });
});

describe('uriTooLong', () => {
  it('builds the 414 with the bound as max_length', () => {
    expect(uriTooLong(10).toJSON().error.innererror).toEqual({
      code: 'URL_TOO_LONG',
      max_length: 10,
    });
  });

  it.each([[0], [-1], [Number.NaN], ['10']])('refuses a bound of %j', (maxLength) => {
    expect(() => uriTooLong(maxLength as never)).toThrow(
      expect.objectContaining({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', factory: 'uriTooLong' }),
    );
  });
});

describe('long URL options', () => {
  it.each([
    [{ maxLength: 0 }, /"maxLength" must be a positive integer/],
    [{ maxLenght: 5 }, /Did you mean "maxLength"/],
  ])('limitUrlLength refuses %o', (options, message) => {
    expect(() => limitUrlLength(options as LimitUrlLengthOptions)).toThrow(message);
  });

  const ignore = (): void => undefined;
  it.each<[object, RegExp]>([
    [{ maxLength: 10 }, /"otherwise" is required/],
    [{ otherwise: ignore }, /"maxLength" is required/],
    [{ otherwise: ignore, maxLength: 10, codeHeader: 'a b' }, /"codeHeader" must be a header name/],
    [
      { otherwise: ignore, maxLength: 10, requestIdHeader: 'a b' },
      /"requestIdHeader" must be a header name/,
    ],
    [{ otherwise: ignore, maxLength: 10, dateFormat: 'iso' }, /"dateFormat" must be "rfc3339"/],
    [{ otherwise: ignore, maxLength: 10, dateFromat: 'iso' }, /Did you mean "dateFormat"/],
    [{ otherwise: ignore, maxLength: 10, codeHeader: null }, /"codeHeader" must be .*got null/],
    [
      { otherwise: ignore, maxLength: 10, requestIdHeader: null },
      /"requestIdHeader" must be .*got null/,
    ],
    [{ otherwise: ignore, maxLength: 10, dateFormat: null }, /"dateFormat" must be .*got null/],
  ])('answerUrlOverflow refuses %o', (options, message) => {
    expect(() => answerUrlOverflow(createServer(), options as AnswerUrlOverflowOptions)).toThrow(
      message,
    );
  });
});
