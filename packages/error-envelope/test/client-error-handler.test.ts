import { createServer } from 'node:http';
import { connect } from 'node:net';
import { describeEachExpress, listen } from '@resourceful/test-support';
import { describe, expect, it } from 'vitest';
import { clientErrorHandler, errorHandler, parseErrorBody } from '../src/index.js';

/** Sends raw bytes and resolves with everything the server wrote before closing. */
function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.end(bytes);
  });
}

function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describeEachExpress('clientErrorHandler', (express) => {
  async function start(options?: Parameters<typeof clientErrorHandler>[0]) {
    const app = express();
    app.get('/', (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorHandler());
    const server = createServer({ maxHeaderSize: 1024 }, app);
    server.on('clientError', clientErrorHandler(options));
    return listen(server);
  }

  it('answers 431 with the envelope when the headers are over maxHeaderSize', async () => {
    const server = await start();
    try {
      const answer = parse(
        await sendRaw(
          server.port,
          `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`,
        ),
      );
      expect(answer.status).toBe(431);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['error-code']).toBe('INVALID_REQUEST');
      expect(answer.headers.connection).toBe('close');
      expect(parseErrorBody(answer.body)).toMatchObject({
        code: 'INVALID_REQUEST',
        innererror: { code: 'HEADERS_TOO_LARGE' },
      });
    } finally {
      await server.close();
    }
  });

  it('answers 431 for a URL longer than maxHeaderSize', async () => {
    const server = await start();
    try {
      const answer = parse(
        await sendRaw(server.port, `GET /${'x'.repeat(4096)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      );
      expect(answer.status).toBe(431);
    } finally {
      await server.close();
    }
  });

  it('answers 400 with the envelope for a request that is not HTTP', async () => {
    const server = await start();
    try {
      const answer = parse(await sendRaw(server.port, 'HELLO THERE\r\n\r\n'));
      expect(answer.status).toBe(400);
      expect(parseErrorBody(answer.body)).toMatchObject({
        code: 'INVALID_REQUEST',
        innererror: { code: 'MALFORMED_HTTP' },
      });
    } finally {
      await server.close();
    }
  });

  it('sends no code header with codeHeader: false, and keeps serving', async () => {
    const server = await start({ codeHeader: false });
    try {
      const answer = parse(await sendRaw(server.port, 'HELLO THERE\r\n\r\n'));
      expect(answer.headers['error-code']).toBeUndefined();
      const ok = await fetch(`${server.url}/`);
      expect(await ok.json()).toEqual({ ok: true });
    } finally {
      await server.close();
    }
  });
});

describe('clientErrorHandler options', () => {
  it('refuses a code header name that is not a token, and unknown options', () => {
    expect(() => clientErrorHandler({ codeHeader: 'Error Code' })).toThrow(TypeError);
    expect(() => clientErrorHandler({ codeHeadr: 'X' } as never)).toThrow(
      /Did you mean "codeHeader"/,
    );
  });
});
