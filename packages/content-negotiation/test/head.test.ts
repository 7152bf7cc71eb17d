/**
 * RFC 9110 §9.3.2: "The server SHOULD send the same header fields in response to a HEAD request
 * as it would have sent if the request method had been GET." Compared over the wire (node:http,
 * so no client adds an Accept-Encoding of its own), for every format, coding and kind of answer.
 */
import {
  describeEachExpress,
  exactRequest,
  listen,
  parseRawResponses,
  type RunningServer,
  rawExchange,
} from '@resourceful/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentNegotiation } from '../src/index.js';
import { buildApp, CARD } from './app.js';

/** Headers that differ between any two answers. */
const PER_ANSWER = new Set(['date', 'connection', 'keep-alive']);

function comparable(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_ANSWER.has(name)));
}

const ACCEPTS = [undefined, 'application/xml', 'text/xml', 'text/javascript'];
const ENCODINGS = [undefined, 'identity', 'gzip', 'deflate', 'br'];
/** Express's own 404 page names the method (`Cannot HEAD`), so unknown paths are left out. */
const PATHS = [
  '/card',
  '/items?count=3',
  '/greeting',
  '/sent',
  '/sent?as=buffer',
  '/text',
  '/empty',
  '/missing',
];

describeEachExpress('HEAD answers the headers of the GET', (express) => {
  let server: RunningServer;
  let thresholded: RunningServer;

  beforeAll(async () => {
    server = await listen(buildApp(express, { jsonp: true, languages: ['en', 'fr'] }));
    thresholded = await listen(buildApp(express, { compression: { threshold: 300 } }));
  });

  afterAll(async () => {
    await server.close();
    await thresholded.close();
  });

  for (const path of PATHS) {
    describe(`for ${path}`, () => {
      for (const accept of ACCEPTS) {
        it(`when "Accept: ${accept ?? '(none)'}", under every Accept-Encoding`, async () => {
          for (const encoding of ENCODINGS) {
            const headers: Record<string, string> = { 'accept-language': 'fr' };
            if (accept !== undefined) headers.accept = accept;
            if (encoding !== undefined) headers['accept-encoding'] = encoding;
            const target =
              accept === 'text/javascript'
                ? `${path}${path.includes('?') ? '&' : '?'}callback=cb`
                : path;
            const get = await exactRequest(server.port, 'GET', target, headers);
            const head = await exactRequest(server.port, 'HEAD', target, headers);
            const what = `${target} ${JSON.stringify(headers)}`;
            expect(head.status, what).toBe(get.status);
            expect(head.body.length, what).toBe(0);
            expect(comparable(head.headers), what).toEqual(comparable(get.headers));
          }
        });
      }
    });
  }

  it('answers a JSON body the route sent as text with the GET’s headers in Latin-1 too', async () => {
    for (const path of ['/sent', '/sent?as=buffer']) {
      const headers = { 'accept-charset': 'iso-8859-1' };
      const get = await exactRequest(server.port, 'GET', path, headers);
      const head = await exactRequest(server.port, 'HEAD', path, headers);
      expect(get.headers['content-type']).toBe('application/json; charset=ISO-8859-1');
      expect(comparable(head.headers), path).toEqual(comparable(get.headers));
    }
  });

  it('sends Content-Length where the GET does: identity, and bodies under the threshold', async () => {
    for (const [path, coded] of [
      ['/card', false],
      ['/items?count=20', true],
    ] as const) {
      const headers = { 'accept-encoding': 'gzip' };
      const get = await exactRequest(thresholded.port, 'GET', path, headers);
      const head = await exactRequest(thresholded.port, 'HEAD', path, headers);
      expect(get.headers['content-encoding']).toBe(coded ? 'gzip' : undefined);
      expect(comparable(head.headers)).toEqual(comparable(get.headers));
      if (!coded) expect(head.headers['content-length']).toBe(String(get.body.length));
    }
  });

  it('names chunked transfer coding for a coded answer only to an HTTP/1.1 client (RFC 9112 §6.1)', async () => {
    const answers = async (version: string) => {
      const exchanged = await rawExchange(server.port, [
        `GET /card HTTP/${version}\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`,
      ]);
      const again = await rawExchange(server.port, [
        `HEAD /card HTTP/${version}\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`,
      ]);
      const [get] = parseRawResponses(exchanged.text, ['GET']);
      const [head] = parseRawResponses(again.text, ['HEAD']);
      return { get: comparable(get?.headers ?? {}), head: comparable(head?.headers ?? {}) };
    };
    const http11 = await answers('1.1');
    expect(http11.get['transfer-encoding']).toBe('chunked');
    expect(http11.head).toEqual(http11.get);
    const http10 = await answers('1.0');
    expect(http10.get['transfer-encoding']).toBeUndefined();
    expect(http10.get['content-encoding']).toBe('gzip');
    expect(http10.head).toEqual(http10.get);
  });
});

describeEachExpress('JSON a route sends as text, with Express’s own ETag', (express) => {
  let server: RunningServer;

  beforeAll(async () => {
    const app = express();
    app.use(contentNegotiation({ jsonp: true }));
    app.get('/json', (_req, res) => {
      res.json(CARD);
    });
    app.get('/sent', (_req, res) => {
      res.type('json').send(JSON.stringify(CARD));
    });
    server = await listen(app);
  });

  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['Accept: application/xml', { accept: 'application/xml' }, ''],
    ['Accept: text/javascript', { accept: 'text/javascript' }, '?callback=cb'],
    ['Accept-Charset: iso-8859-1', { 'accept-charset': 'iso-8859-1' }, ''],
  ])(
    'is tagged and measured as res.json() is, GET and HEAD, under %s',
    async (_, headers, query) => {
      const json = await exactRequest(server.port, 'GET', `/json${query}`, headers);
      const get = await exactRequest(server.port, 'GET', `/sent${query}`, headers);
      const head = await exactRequest(server.port, 'HEAD', `/sent${query}`, headers);
      expect(get.body).toEqual(json.body);
      expect(comparable(get.headers)).toEqual(comparable(json.headers));
      expect(comparable(head.headers)).toEqual(comparable(get.headers));
    },
  );
});
