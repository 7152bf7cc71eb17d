import { createServer, type IncomingMessage, type ServerOptions } from 'node:http';
import { connect } from 'node:net';
import {
  describeEachExpress,
  type ExpressModule,
  listen,
  parseRawResponses,
  type RawExchange,
  type RawResponse,
  type RunningServer,
  rawExchange,
  waitFor,
} from '@resourceful/test-support';
import type { Request, Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import {
  attachServerErrorHandlers,
  clientErrorHandler,
  type ErrorHandlerOptions,
  type ErrorReport,
  errorHandler,
  hasRepeatedHost,
  isValidHost,
  MAX_HOST_NAME_LENGTH,
  parseErrorBody,
  REQUEST_ID_KEY,
} from '../src/index.js';

const GARBAGE = 'NOT HTTP AT ALL\r\n\r\n';

/** The request the app saw last, so a test can wait on its state. */
let lastRequest: IncomingMessage | undefined;

/**
 * Writes `first`, waits until `ready` holds (given what the server wrote so far), writes
 * `second`, and resolves when the server closes the connection (or after 5 s).
 */
function exchangeInSteps(
  port: number,
  first: string,
  ready: (received: string) => boolean,
  second: string,
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    let closedByServer = false;
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('end', () => {
      closedByServer = true;
      socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') closedByServer = true;
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedByServer });
    });
    socket.on('connect', async () => {
      socket.write(first);
      try {
        await waitFor(() => ready(text), { intervalMs: 5, what: 'the server to be ready' });
      } catch (error) {
        socket.destroy();
        reject(error);
        return;
      }
      if (!socket.destroyed) socket.write(second);
    });
  });
}

/** Answers on a later turn of the event loop, as a handler reading a store does. */
const later = () => new Promise((resolve) => setTimeout(resolve, 20));

describeEachExpress('the server-level handlers', (express) => {
  let running: RunningServer | undefined;
  let items: Map<string, unknown>;
  let reports: ErrorReport[];

  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  async function start({
    app: appOptions = {},
    server: serverOptions = {},
    client,
    slowBeforeBody = false,
  }: {
    slowBeforeBody?: boolean;
    app?: ErrorHandlerOptions;
    server?: ServerOptions;
    client?: ErrorHandlerOptions;
  } = {}): Promise<RunningServer> {
    items = new Map([['1', { name: 'one' }]]);
    reports = [];
    const app = appFor(express, items, slowBeforeBody);
    app.use(errorHandler({ onError: (report) => reports.push(report), ...appOptions }));
    const server = attachServerErrorHandlers(
      createServer({ maxHeaderSize: 1024, ...serverOptions }, app),
      client,
    );
    running = await listen(server);
    return running;
  }

  describe('when the bytes after a request the app is answering are not HTTP', () => {
    const cases = [
      ['GET', 'GET /items/1 HTTP/1.1\r\nHost: x\r\n\r\n', 200],
      ['HEAD', 'HEAD /items/1 HTTP/1.1\r\nHost: x\r\n\r\n', 200],
      ['DELETE', 'DELETE /items/1 HTTP/1.1\r\nHost: x\r\n\r\n', 204],
      [
        'PUT',
        'PUT /items/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{"name":"new!"}',
        200,
      ],
      [
        'PATCH',
        'PATCH /items/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{"name":"new!"}',
        200,
      ],
      [
        'POST',
        'POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{"name":"new!"}',
        201,
      ],
    ] as const;

    for (const [method, request, status] of cases) {
      it(`writes the ${method}'s own answer whole, then closes without a refusal`, async () => {
        const server = await start();
        const exchange = await rawExchange(server.port, request + GARBAGE);
        const responses = parseRawResponses(exchange.text, [method]);
        expect(responses.map((response) => response.status)).toEqual([status]);
        expect(responses[0]?.headers.connection).toBe('close');
        expect(exchange.closedByServer).toBe(true);
        if (method === 'DELETE') expect(items.has('1')).toBe(false);
        if (method === 'PUT' || method === 'PATCH')
          expect(items.get('1')).toEqual({ name: 'new!' });
        if (method === 'POST') expect(items.size).toBe(2);
      });
    }

    it('answers every pipelined request in order, then closes', async () => {
      const server = await start();
      const exchange = await rawExchange(
        server.port,
        `GET /items/1 HTTP/1.1\r\nHost: x\r\n\r\nDELETE /items/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /items/1 HTTP/1.1\r\nHost: x\r\n\r\n${GARBAGE}`,
      );
      const responses = parseRawResponses(exchange.text);
      expect(responses.map((response) => response.status)).toEqual([200, 204, 404]);
      expect(responses[0]?.headers.connection).toBe('keep-alive');
      expect(responses[2]?.headers.connection).toBe('close');
      expect(exchange.closedByServer).toBe(true);
    });

    it('closes without a refusal after an answer written at once, when the bytes came with it', async () => {
      const server = await start();
      const exchange = await rawExchange(
        server.port,
        `GET /sync HTTP/1.1\r\nHost: x\r\n\r\n${GARBAGE}`,
      );
      const responses = parseRawResponses(exchange.text);
      expect(responses.map((response) => response.status)).toEqual([200]);
      expect(exchange.closedByServer).toBe(true);
    });

    it('refuses bytes sent later on a kept-alive connection, as an answer of their own', async () => {
      const server = await start();
      const exchange = await exchangeInSteps(
        server.port,
        'GET /sync HTTP/1.1\r\nHost: x\r\n\r\n',
        // The first answer is whole on the client: the later bytes are a request of their own.
        (received) => received.endsWith('{"ok":true}'),
        GARBAGE,
      );
      const responses = parseRawResponses(exchange.text);
      expect(responses.map((response) => response.status)).toEqual([200, 400]);
      expect(responses[1]?.headers.connection).toBe('close');
    });

    it('reports the refused bytes to onError as not answered', async () => {
      const server = await start();
      await rawExchange(server.port, `GET /items/1 HTTP/1.1\r\nHost: x\r\n\r\n${GARBAGE}`);
      expect(reports).toMatchObject([
        { status: 400, kind: 'client-error', headersSent: true, req: undefined },
      ]);
    });
  });

  describe('when a body is sent without Content-Length (so it reads as the next request)', () => {
    for (const [method, path, status] of [
      ['DELETE', '/items/1', 204],
      ['PUT', '/items/1', 400],
      ['PATCH', '/items/1', 400],
      ['POST', '/items', 400],
      ['GET', '/items/1', 200],
    ] as const) {
      it(`${method} gets the answer of what ran (${status}), and the state agrees`, async () => {
        const server = await start();
        const exchange = await rawExchange(
          server.port,
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n{"name":"ignored"}`,
        );
        const responses = parseRawResponses(exchange.text, [method]);
        expect(responses.map((response) => response.status)).toEqual([status]);
        // The app's own refusal of a write without a body, not the parser's of the stray bytes.
        if (status === 400) expect(responses[0]?.body).toContain('VALIDATION_ERROR');
        expect(exchange.closedByServer).toBe(true);
        // Without a body the writes are refused, so only the DELETE changed anything.
        expect(items.has('1')).toBe(method !== 'DELETE');
        if (items.has('1')) expect(items.get('1')).toEqual({ name: 'one' });
        expect(items.size).toBe(method === 'DELETE' ? 0 : 1);
      });
    }
  });

  describe('when the refused bytes are the body the app is reading', () => {
    it('answers the envelope as that request answer, and the handler never runs', async () => {
      const server = await start();
      const exchange = await exchangeInSteps(
        server.port,
        'POST /items HTTP/1.1\r\nHost: x\r\nX-Request-Id: rid-42\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        // The body parser is reading when the broken chunk comes.
        () => lastRequest?.readableFlowing === true,
        '5\r\n{"nam\r\nZZZ-not-a-chunk-size\r\n\r\n',
      );
      const responses = parseRawResponses(exchange.text, ['POST']);
      expect(responses).toHaveLength(1);
      expect(responses[0]?.status).toBe(400);
      expect(parseErrorBody(responses[0]?.body ?? '')).toMatchObject({
        code: 'INVALID_REQUEST',
        innererror: { code: 'MALFORMED_HTTP', request_id: 'rid-42' },
      });
      expect(exchange.closedByServer).toBe(true);
      expect(items.size).toBe(1);
    });
  });

  describe('when the refused bytes are a body the app has not started reading yet', () => {
    it('answers the envelope once the app starts reading it, after async middleware', async () => {
      const server = await start({ slowBeforeBody: true });
      const exchange = await rawExchange(
        server.port,
        'POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\nZZ\r\n',
        { timeoutMs: 4_000 },
      );
      const responses = parseRawResponses(exchange.text, ['POST']);
      expect(responses.map((response) => response.status)).toEqual([400]);
      expect(parseErrorBody(responses[0]?.body ?? '')).toMatchObject({
        innererror: { code: 'MALFORMED_HTTP' },
      });
      expect(exchange.closedByServer).toBe(true);
      expect(items.size).toBe(1);
      await waitFor(() => lastRequest?.socket?.destroyed === true, { what: 'the request to end' });
      expect(reports.map((report) => report.status)).toEqual([400]);
    });

    it('writes the answer of a handler that ran without reading the body, then closes', async () => {
      const server = await start({ slowBeforeBody: true });
      const exchange = await rawExchange(
        server.port,
        'DELETE /items/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\nZZ\r\n',
        { timeoutMs: 4_000 },
      );
      const responses = parseRawResponses(exchange.text, ['DELETE']);
      expect(responses.map((response) => response.status)).toEqual([204]);
      expect(exchange.closedByServer).toBe(true);
      expect(items.has('1')).toBe(false);
    });

    it('answers 408 when the app neither reads the body nor answers within requestTimeout', async () => {
      const server = await start({
        slowBeforeBody: true,
        server: { requestTimeout: 500, headersTimeout: 400, connectionsCheckingInterval: 50 },
      });
      const exchange = await rawExchange(
        server.port,
        'POST /never HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\nZZ\r\n',
        { timeoutMs: 4_000 },
      );
      const responses = parseRawResponses(exchange.text, ['POST']);
      expect(responses.map((response) => response.status)).toEqual([408]);
      expect(exchange.closedByServer).toBe(true);
    });
  });

  describe('when no request is being answered', () => {
    it('answers 400 with the envelope for bytes that are not HTTP', async () => {
      const server = await start();
      const exchange = await rawExchange(server.port, GARBAGE);
      const [response, ...more] = parseRawResponses(exchange.text);
      expect(more).toEqual([]);
      expect(response?.status).toBe(400);
      expect(response?.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response?.headers['error-code']).toBe('INVALID_REQUEST');
      expect(response?.headers.connection).toBe('close');
      expect(parseErrorBody(response?.body ?? '')).toMatchObject({
        code: 'INVALID_REQUEST',
        innererror: { code: 'MALFORMED_HTTP' },
      });
      expect(exchange.closedByServer).toBe(true);
    });

    it('answers 431 HEADERS_TOO_LARGE for headers over maxHeaderSize', async () => {
      const server = await start();
      const exchange = await rawExchange(
        server.port,
        `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`,
      );
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(431);
      expect(response?.headers['error-code']).toBe('HEADERS_TOO_LARGE');
      expect(parseErrorBody(response?.body ?? '')).toMatchObject({ code: 'HEADERS_TOO_LARGE' });
    });

    it('answers 431 for a request line longer than maxHeaderSize', async () => {
      const server = await start();
      const exchange = await rawExchange(
        server.port,
        `GET /${'x'.repeat(4096)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      expect(parseRawResponses(exchange.text)[0]?.status).toBe(431);
    });

    it('answers 408 REQUEST_TIMEOUT when the headers do not arrive within headersTimeout', async () => {
      const server = await start({
        server: { headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 },
      });
      const exchange = await rawExchange(server.port, 'GET /items/1 HTTP/1.1\r\nHost: x\r\n', {
        timeoutMs: 5_000,
      });
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(408);
      expect(parseErrorBody(response?.body ?? '')).toMatchObject({ code: 'REQUEST_TIMEOUT' });
      expect(exchange.closedByServer).toBe(true);
    });
  });

  describe("the app's error settings", () => {
    it("uses the app's code header and onError when given no options", async () => {
      const server = await start({ app: { codeHeader: 'X-Error-Code' } });
      const exchange = await rawExchange(server.port, GARBAGE);
      const [response] = parseRawResponses(exchange.text);
      expect(response?.headers['x-error-code']).toBe('INVALID_REQUEST');
      expect(response?.headers['error-code']).toBeUndefined();
      expect(reports).toMatchObject([{ status: 400, kind: 'client-error', req: undefined }]);
    });

    it('lets its own options override the app', async () => {
      const server = await start({
        app: { codeHeader: 'X-Error-Code' },
        client: { codeHeader: false },
      });
      const [response] = parseRawResponses((await rawExchange(server.port, GARBAGE)).text);
      expect(response?.headers['x-error-code']).toBeUndefined();
      expect(response?.headers['error-code']).toBeUndefined();
      const ok = await fetch(`${server.url}/items/1`);
      expect(await ok.json()).toEqual({ name: 'one' });
    });
  });

  describe('answers Node would write itself', () => {
    it('answers 417 EXPECTATION_FAILED with the envelope for an Expect other than 100-continue', async () => {
      const server = await start({ app: { codeHeader: 'X-Error-Code' } });
      const exchange = await rawExchange(
        server.port,
        'GET /items/1 HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n',
      );
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(417);
      expect(response?.headers['x-error-code']).toBe('EXPECTATION_FAILED');
      expect(parseErrorBody(response?.body ?? '')).toMatchObject({
        code: 'EXPECTATION_FAILED',
        target: 'Expect',
      });
    });

    it('answers 405 with an empty Allow to CONNECT, instead of dropping the connection', async () => {
      const server = await start();
      const exchange = await rawExchange(
        server.port,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      );
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(405);
      expect(response?.headers.allow).toBe('');
      expect(parseErrorBody(response?.body ?? '')).toMatchObject({
        code: 'METHOD_NOT_ALLOWED',
        innererror: { code: 'CONNECT_NOT_SUPPORTED' },
      });
      expect(exchange.closedByServer).toBe(true);
    });
  });
});

describeEachExpress('the request id and Date of answers no middleware stamps', (express) => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  async function start(options: Parameters<typeof attachServerErrorHandlers>[1]) {
    const reports: ErrorReport[] = [];
    const app = express();
    app.get('/', (_req: Request, res: Response) => {
      res.json({ ran: true });
    });
    app.use(errorHandler({ onError: (report) => reports.push(report) }));
    const server = attachServerErrorHandlers(createServer({ maxHeaderSize: 1024 }, app), options);
    running = await listen(server);
    return { port: running.port, reports };
  }

  it.each([
    ['bytes that are not HTTP (400)', GARBAGE, 400],
    [
      'headers over maxHeaderSize (431)',
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`,
      431,
    ],
    ['a CONNECT (405)', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405],
    [
      'an unknown Expect (417)',
      'GET / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n',
      417,
    ],
    ['an HTTP/1.1 request without Host (400)', 'GET / HTTP/1.1\r\n\r\n', 400],
  ])(
    'gives %s a new request id, in its header, envelope and report, and the Date asked for',
    async (_, text, status) => {
      const { port, reports } = await start({
        requestIdHeader: 'X-Request-Id',
        dateFormat: 'rfc3339',
      });
      const [response] = parseRawResponses((await rawExchange(port, text)).text);
      expect(response?.status).toBe(status);
      const id = response?.headers['x-request-id'];
      expect(id).toMatch(UUID);
      expect(parseErrorBody(response?.body ?? '')?.innererror).toMatchObject({ request_id: id });
      expect(response?.headers.date).toMatch(RFC3339);
      await waitFor(() => reports.length === 1, { what: 'the report' });
      expect(reports[0]?.requestId).toBe(id);
    },
  );

  it('sends HTTP’s date form when asked', async () => {
    const { port } = await start({ dateFormat: 'imf-fixdate' });
    const [response] = parseRawResponses((await rawExchange(port, GARBAGE)).text);
    expect(response?.headers.date).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(response?.headers['x-request-id']).toBeUndefined();
  });

  it('adds neither by default, as Node would not', async () => {
    const { port } = await start(undefined);
    const [response] = parseRawResponses((await rawExchange(port, GARBAGE)).text);
    expect(response?.status).toBe(400);
    expect(response?.headers['x-request-id']).toBeUndefined();
    expect(response?.headers.date).toBeUndefined();
    expect(parseErrorBody(response?.body ?? '')?.innererror).not.toHaveProperty('request_id');
  });

  it('refuses a request id header that is no header name, and an unknown date form', () => {
    expect(() => clientErrorHandler({ requestIdHeader: 'Request Id' })).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        option: 'requestIdHeader',
      }),
    );
    expect(() =>
      attachServerErrorHandlers(createServer(), { dateFormat: 'iso' as 'rfc3339' }),
    ).toThrow(expect.objectContaining({ option: 'dateFormat' }));
  });
});

describeEachExpress("the app's own connect and checkExpectation listeners", (express) => {
  function serverWithOwnListeners(reports: ErrorReport[]) {
    const app = express();
    app.get('/', (_req: Request, res: Response) => {
      res.json({ ran: true });
    });
    app.use(errorHandler({ onError: (report) => reports.push(report) }));
    const server = attachServerErrorHandlers(createServer(app));
    // Registered after attachServerErrorHandlers, as an app adding a tunnel later would.
    server.on('connect', (_req, socket) => {
      socket.end('HTTP/1.1 200 Connection Established\r\n\r\ntunnel');
    });
    server.on('checkExpectation', (_req, res) => {
      res.writeHead(417, { 'Content-Type': 'text/plain', Connection: 'close' });
      res.end('own 417');
    });
    return server;
  }

  it('leaves CONNECT to the app when it listens for it itself', async () => {
    const reports: ErrorReport[] = [];
    const running = await listen(serverWithOwnListeners(reports));
    try {
      const exchange = await rawExchange(
        running.port,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      );
      expect(exchange.text).toBe('HTTP/1.1 200 Connection Established\r\n\r\ntunnel');
      expect(reports).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it('leaves an unknown Expect to the app when it listens for it, and reports nothing', async () => {
    const reports: ErrorReport[] = [];
    const running = await listen(serverWithOwnListeners(reports));
    try {
      const exchange = await rawExchange(
        running.port,
        'GET / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n',
      );
      const [response, ...more] = parseRawResponses(exchange.text);
      expect(more).toEqual([]);
      expect(response?.status).toBe(417);
      expect(response?.body).toBe('own 417');
      expect(reports).toEqual([]);
    } finally {
      await running.close();
    }
  });
});

/** A small store with one route per verb; each answers on a later turn of the event loop. */
function appFor(express: ExpressModule, items: Map<string, unknown>, slowBeforeBody = false) {
  const app = express();
  // An async middleware before the body parser (a session or auth lookup): the body is not
  // read until it is done.
  if (slowBeforeBody)
    app.use((_req: Request, _res: Response, next: () => void) => void later().then(() => next()));
  // A handler that neither reads the body nor answers: only requestTimeout ends it.
  app.post('/never', () => undefined);
  // As @resourceful/http-conventions does: the request's id, stored under the shared key.
  app.use((req: Request, _res: Response, next: () => void) => {
    lastRequest = req;
    const id = req.headers['x-request-id'];
    if (typeof id === 'string')
      (req as Request & { [REQUEST_ID_KEY]?: string })[REQUEST_ID_KEY] = id;
    next();
  });
  app.use(express.json());
  app.get('/sync', (_req: Request, res: Response) => {
    res.json({ ok: true });
  });
  app.get('/items/:id', async (req: Request, res: Response) => {
    await later();
    const item = items.get(String(req.params.id));
    if (item === undefined) res.status(404).json({ error: { code: 'NOT_FOUND', message: 'x' } });
    else res.json(item);
  });
  app.delete('/items/:id', async (req: Request, res: Response) => {
    await later();
    items.delete(String(req.params.id));
    res.status(204).end();
  });
  const write = async (req: Request, res: Response) => {
    await later();
    if (typeof req.body?.name !== 'string') {
      res.status(400).json({ error: { code: 'VALIDATION_ERROR', message: 'name' } });
      return;
    }
    items.set(String(req.params.id), { name: req.body.name });
    res.json(items.get(String(req.params.id)));
  };
  app.put('/items/:id', write);
  app.patch('/items/:id', write);
  app.post('/items', async (req: Request, res: Response) => {
    await later();
    if (typeof req.body?.name !== 'string') {
      res.status(400).json({ error: { code: 'VALIDATION_ERROR', message: 'name' } });
      return;
    }
    items.set(String(items.size + 1), { name: req.body.name });
    res.status(201).json({ name: req.body.name });
  });
  return app;
}

describe('clientErrorHandler options', () => {
  it('refuses a code header name that is not a token, and unknown options', () => {
    expect(() => clientErrorHandler({ codeHeader: 'Error Code' })).toThrow(
      expect.objectContaining({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'codeHeader' }),
    );
    expect(() => clientErrorHandler({ codeHeadr: 'X' } as never)).toThrow(
      /Did you mean "codeHeader"/,
    );
    expect(() => clientErrorHandler({ codeHeadr: 'X' } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION' }),
    );
    expect(() => attachServerErrorHandlers(createServer(), { retryAfter: -1 })).toThrow(
      expect.objectContaining({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'retryAfter' }),
    );
  });
});

describe('clientErrorHandler and attachServerErrorHandlers options objects', () => {
  it('refuse an array, which spread into the error settings passed as {}', () => {
    expect(() => clientErrorHandler([] as never)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
        factory: 'clientErrorHandler',
      }),
    );
    expect(() => attachServerErrorHandlers(createServer(), [] as never)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
        factory: 'attachServerErrorHandlers',
      }),
    );
  });

  it('suggest "dateFormat" and "requestIdHeader" for their typos, and list them as known', () => {
    expect(() => clientErrorHandler({ dateFormt: 'rfc3339' } as never)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
        option: 'dateFormt',
        message: expect.stringMatching(
          /Did you mean "dateFormat"\?.*Known options: .*requestIdHeader, dateFormat\./,
        ),
      }),
    );
    expect(() =>
      attachServerErrorHandlers(createServer(), { requestIdHeadr: 'X-Request-Id' } as never),
    ).toThrow(/Did you mean "requestIdHeader"/);
  });
});

describe('attachServerErrorHandlers options', () => {
  it('names attachServerErrorHandlers, the function called, in its option errors', () => {
    const server = createServer();
    expect(() => attachServerErrorHandlers(server, { zz: 1 } as never)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
        factory: 'attachServerErrorHandlers',
        option: 'zz',
        message: expect.stringMatching(/^attachServerErrorHandlers: unknown option "zz"\./),
      }),
    );
    expect(() => attachServerErrorHandlers(server, { requestIdHeader: 'Request Id' })).toThrow(
      /^attachServerErrorHandlers: "requestIdHeader" must be/,
    );
    expect(() => attachServerErrorHandlers(server, 'strict' as never)).toThrow(
      expect.objectContaining({ factory: 'attachServerErrorHandlers' }),
    );
  });

  it('attaches no listener when an option is refused', () => {
    const server = createServer();
    const events = ['clientError', 'checkExpectation', 'connect', 'dropRequest'] as const;
    expect(() => attachServerErrorHandlers(server, { codeHeadr: 'X' } as never)).toThrow(
      /Did you mean "codeHeader"/,
    );
    expect(events.map((event) => server.listenerCount(event))).toEqual([0, 0, 0, 0]);
  });

  it('still names clientErrorHandler when that is the function called', () => {
    expect(() => clientErrorHandler({ zz: 1 } as never)).toThrow(
      expect.objectContaining({ factory: 'clientErrorHandler', option: 'zz' }),
    );
  });
});

describeEachExpress('requests over maxRequestsPerSocket', (express) => {
  it('answers them with a 503 envelope and Retry-After: 0 instead of a bare 503', async () => {
    const app = express();
    app.get('/n/:n', async (req: Request, res: Response) => {
      await later();
      res.json({ n: req.params.n });
    });
    app.use(errorHandler({ onError: () => undefined }));
    const server = attachServerErrorHandlers(createServer(app));
    server.maxRequestsPerSocket = 2;
    const running = await listen(server);
    try {
      const get = (n: number) => `GET /n/${n} HTTP/1.1\r\nHost: x\r\n\r\n`;
      const exchange = await rawExchange(running.port, get(1) + get(2) + get(3));
      const responses = parseRawResponses(exchange.text);
      expect(responses.map((response) => response.status)).toEqual([200, 200, 503]);
      expect(responses[1]?.headers.connection).toBe('close');
      expect(responses[2]?.headers['retry-after']).toBe('0');
      expect(parseErrorBody(responses[2]?.body ?? '')).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        innererror: { code: 'MAX_REQUESTS_PER_CONNECTION' },
      });
    } finally {
      await running.close();
    }
  });
});

describeEachExpress('requests Node answers before any event', (express) => {
  it('answers an HTTP/1.1 request without Host with a 400 envelope naming Host', async () => {
    const app = express();
    app.get('/', (_req: Request, res: Response) => {
      res.json({ ran: true });
    });
    app.use(errorHandler({ onError: () => undefined, codeHeader: 'X-Error-Code' }));
    const running = await listen(attachServerErrorHandlers(createServer(app)));
    try {
      const exchange = await rawExchange(running.port, 'GET / HTTP/1.1\r\n\r\n');
      const [response, ...more] = parseRawResponses(exchange.text);
      expect(more).toEqual([]);
      expect(response?.status).toBe(400);
      expect(response?.headers['x-error-code']).toBe('INVALID_REQUEST');
      expect(response?.headers.connection).toBe('close');
      expect(parseErrorBody(response?.body ?? '')).toMatchObject({
        code: 'INVALID_REQUEST',
        target: 'Host',
      });
      expect(exchange.closedByServer).toBe(true);
    } finally {
      await running.close();
    }
  });

  it('writes that 400 with the options given to attachServerErrorHandlers', async () => {
    const reports: ErrorReport[] = [];
    const app = express();
    app.use(errorHandler({ onError: () => undefined, codeHeader: 'X-Error-Code' }));
    const running = await listen(
      attachServerErrorHandlers(createServer(app), {
        codeHeader: 'X-Server-Code',
        onError: (report) => reports.push(report),
      }),
    );
    try {
      const exchange = await rawExchange(running.port, 'GET / HTTP/1.1\r\n\r\n');
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(400);
      expect(response?.headers['x-server-code']).toBe('INVALID_REQUEST');
      expect(response?.headers['x-error-code']).toBeUndefined();
      expect(reports).toMatchObject([{ status: 400 }]);
    } finally {
      await running.close();
    }
  });

  describe('the Host checks (RFC 9112 §3.2)', () => {
    let ran = 0;
    let reports: ErrorReport[] = [];
    let running: RunningServer | undefined;

    async function startWithRoutes(options?: ServerOptions): Promise<number> {
      ran = 0;
      reports = [];
      const app = express();
      app.all('/', (req: Request, res: Response) => {
        ran += 1;
        res.json({ host: req.headers.host });
      });
      app.use(
        errorHandler({ onError: (report) => reports.push(report), codeHeader: 'X-Error-Code' }),
      );
      running = await listen(attachServerErrorHandlers(createServer(options ?? {}, app)));
      return running.port;
    }

    afterEach(async () => {
      await running?.close();
      running = undefined;
    });

    /**
     * The one answer of `exchange`, asserted to be a 400 envelope naming Host with `code` as its
     * cause, the connection closed and the app not run.
     */
    function expectHostRefusal(exchange: RawExchange, code: string): RawResponse {
      const [response, ...more] = parseRawResponses(exchange.text);
      expect(more).toEqual([]);
      expect(response?.status).toBe(400);
      expect(response?.headers['x-error-code']).toBe('INVALID_REQUEST');
      expect(response?.headers.connection).toBe('close');
      expect(parseErrorBody(response?.body ?? '')).toMatchObject({
        code: 'INVALID_REQUEST',
        target: 'Host',
        innererror: { code },
      });
      expect(exchange.closedByServer).toBe(true);
      expect(ran).toBe(0);
      return response as RawResponse;
    }

    /** The statuses of the answers to `text`, sent on one connection. */
    async function statusesOf(port: number, text: string): Promise<number[]> {
      return parseRawResponses((await rawExchange(port, text)).text).map((answer) => answer.status);
    }

    describe.each([
      ['more than one Host line', 'Host: a\r\nHost: b'],
      ['a Host value outside uri-host [":" port]', 'Host: a b'],
    ])('when a request has %s', (_, lines) => {
      it('answers the requests before it on the connection, then refuses it', async () => {
        const port = await startWithRoutes();
        const text = `GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\n${lines}\r\n\r\n`;
        expect(await statusesOf(port, text)).toEqual([200, 400]);
        expect(ran).toBe(1);
      });

      it('leaves the request to the app when requireHostHeader is off, as for a missing Host', async () => {
        const port = await startWithRoutes({ requireHostHeader: false });
        const text = `GET / HTTP/1.1\r\n${lines}\r\nConnection: close\r\n\r\n`;
        expect(await statusesOf(port, text)).toEqual([200]);
        expect(ran).toBe(1);
      });
    });

    describe('when an HTTP/1.1 request has more than one Host line', () => {
      it.each([
        ['two lines', 'Host: a\r\nHost: b'],
        ['the same value twice', 'Host: a\r\nHost: a'],
        ['names in other cases', 'host: a\r\nHOST: b'],
        ['other fields between them', 'Host: a\r\nAccept: */*\r\nhOsT: b'],
        ['an empty second line', 'Host: a\r\nHost:'],
      ])('answers a 400 envelope naming Host for %s, before the app runs', async (_, lines) => {
        const port = await startWithRoutes();
        const exchange = await rawExchange(
          port,
          `POST / HTTP/1.1\r\n${lines}\r\nContent-Length: 0\r\n\r\n`,
        );
        expectHostRefusal(exchange, 'REPEATED_HOST');
      });

      it('reports the request with the Host Node read, not as one without', async () => {
        const port = await startWithRoutes();
        await rawExchange(port, 'GET / HTTP/1.1\r\nHost: first\r\nHost: second\r\n\r\n');
        await waitFor(() => reports.length === 1, { what: 'the report' });
        expect(reports[0]).toMatchObject({ status: 400, kind: 'client-error' });
        expect(reports[0]?.req?.headers.host).toBe('first');
      });

      it('answers a request with one Host line, whatever its case, as usual', async () => {
        const port = await startWithRoutes();
        const text =
          'GET / HTTP/1.1\r\nhOST: a\r\nX-Host: b\r\nHosts: c\r\nConnection: close\r\n\r\n';
        expect(await statusesOf(port, text)).toEqual([200]);
        expect(ran).toBe(1);
      });

      it('refuses an HTTP/1.0 request too: RFC 9112 §3.2 asks it of any request message', async () => {
        const port = await startWithRoutes();
        const exchange = await rawExchange(port, 'GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n');
        const [response, ...more] = parseRawResponses(exchange.text);
        expect(more).toEqual([]);
        expect(exchange.text.startsWith('HTTP/1.1 400 ')).toBe(true);
        expect(response?.headers['transfer-encoding']).toBeUndefined();
        expect(parseErrorBody(response?.body ?? '')).toMatchObject({
          target: 'Host',
          innererror: { code: 'REPEATED_HOST' },
        });
        expect(ran).toBe(0);
        expect(reports[0]?.req?.httpVersionMinor).toBe(0);
      });

      it('leaves an HTTP/1.0 request without Host to the app: Host is required of HTTP/1.1 only', async () => {
        const port = await startWithRoutes();
        expect(await statusesOf(port, 'GET / HTTP/1.0\r\n\r\n')).toEqual([200]);
        expect(ran).toBe(1);
      });
    });

    describe('when a request has one Host line whose value is not uri-host [":" port]', () => {
      // Connection: close, so that a request let through ends its exchange at once instead of
      // at the server's keep-alive timeout.
      const send = (port: number, host: string, version = '1.1') =>
        rawExchange(
          port,
          `POST / HTTP/${version}\r\nHost: ${host}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        );

      it.each([
        ['a space', 'a b'],
        ['a tab', 'a\tb'],
        ['userinfo', 'a@b'],
        ['user and password', 'user:secret@api.example'],
        ['a port without a name', ':80'],
        ['a name over 255 characters', `${'a'.repeat(252)}.com1`],
        ['a port over 65535', 'api.example:65536'],
        ['a port of six digits', 'api.example:000080'],
        ['a port with a letter', 'api.example:8o'],
        ['a negative port', 'api.example:-1'],
        ['two ports', 'api.example:80:80'],
        ['a path', 'api.example/v1'],
        ['a query', 'api.example?x'],
        ['a non-ASCII name', 'bücher.example'],
        ['a bad percent-encoding', 'a%zz'],
        ['an unclosed IPv6 literal', '[::1'],
        ['an IPv6 literal with a zone', '[fe80::1%25eth0]'],
        ['an IPv6 literal followed by junk', '[::1]x'],
        ['an IPv6 address without brackets', '::1'],
        ['an IPv4 address in brackets', '[127.0.0.1]'],
        ['an IPvFuture literal', '[v1.fe80::a]'],
      ])('answers a 400 envelope naming Host for %s, before the app runs', async (_, host) => {
        const port = await startWithRoutes();
        const response = expectHostRefusal(await send(port, host), 'INVALID_HOST');
        // The value is not echoed back.
        if (host.length > 3) expect(response.body).not.toContain(host);
        expect(reports).toMatchObject([{ status: 400, kind: 'client-error' }]);
        // As Node read it: each byte one character.
        expect(reports[0]?.req?.headers.host).toBe(Buffer.from(host).toString('latin1'));
      });

      it('answers a 400 MALFORMED_HTTP for control bytes, which the parser refuses first', async () => {
        const port = await startWithRoutes();
        const [response] = parseRawResponses((await send(port, 'a\u0001b')).text);
        expect(response?.status).toBe(400);
        expect(parseErrorBody(response?.body ?? '')?.innererror).toMatchObject({
          code: 'MALFORMED_HTTP',
        });
        expect(ran).toBe(0);
      });

      it('refuses an invalid Host on HTTP/1.0 as on HTTP/1.1, answered as HTTP/1.0 would be', async () => {
        const port = await startWithRoutes();
        const exchange = await send(port, 'a b', '1.0');
        const [response] = parseRawResponses(exchange.text);
        expect(response?.status).toBe(400);
        expect(response?.headers['content-length']).toBeDefined();
        expect(parseErrorBody(response?.body ?? '')?.target).toBe('Host');
        expect(ran).toBe(0);
      });

      it.each([
        'api.example',
        'api.example:8080',
        'API.Example:443',
        '127.0.0.1:3000',
        '[::1]:8080',
        '[::1]',
        '[2001:db8::ffff:192.0.2.1]',
        'payments_api:3000',
        'xn--bcher-kva.example',
        'api.example:',
        // Empty: RFC 9112 §3.3 lets the server use its own authority.
        '',
        `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}`,
      ])('lets Host %j through to the app', async (host) => {
        const port = await startWithRoutes();
        const [response] = parseRawResponses((await send(port, host)).text);
        expect(response?.status).toBe(200);
        expect(JSON.parse(response?.body ?? '')).toEqual({ host });
        expect(ran).toBe(1);
      });
    });
  });

  describe('isValidHost', () => {
    it.each([
      ['a', true],
      ['a.example:80', true],
      ['[::1]:8080', true],
      ["a-._~!$&'()*+,;=", true],
      ['%41b', true],
      ['a'.repeat(MAX_HOST_NAME_LENGTH), true],
      ['a'.repeat(MAX_HOST_NAME_LENGTH + 1), false],
      ['a:65535', true],
      ['a:65536', false],
      ['%4', false],
      ['a%', false],
      ['[::1]:', true],
      ['[::1]:x', false],
      ['[fe80::1%eth0]', false],
      ['a b', false],
      ['', false],
    ])('%j → %s', (value, expected) => {
      expect(isValidHost(value)).toBe(expected);
    });
  });

  describe('hasRepeatedHost', () => {
    it.each([
      [[], false],
      [['Host', 'a'], false],
      [['Host', 'a', 'Accept', 'x'], false],
      [['Host', 'a', 'HOST', 'a'], true],
      [['Hos', 'a', 'Hosts', 'b', 'host', 'c'], false],
      [['Gost', 'a', 'host', 'c'], false],
      // The values are not names: a value "Host" is not a second line.
      [['Host', 'Host', 'Accept', 'Host'], false],
    ])('%j → %s', (rawHeaders, expected) => {
      expect(hasRepeatedHost(rawHeaders)).toBe(expected);
    });
  });

  it('answers chunk extensions over Node limit with a 413 envelope', async () => {
    const app = express();
    // Reading the body: the refused bytes are that body, so the refusal is the answer.
    app.use(express.raw({ type: '*/*' }));
    app.post('/', (_req: Request, res: Response) => {
      res.json({ ran: true });
    });
    const running = await listen(attachServerErrorHandlers(createServer(app)));
    try {
      const exchange = await rawExchange(
        running.port,
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n1;${'a'.repeat(20_000)}\r\nx\r\n0\r\n\r\n`,
      );
      const responses = parseRawResponses(exchange.text);
      expect(responses.map((response) => response.status)).toEqual([413]);
      expect(parseErrorBody(responses[0]?.body ?? '')).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
      });
    } finally {
      await running.close();
    }
  });
});
