import { createServer } from 'node:http';
import { conditionalRequests } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  parseXmlMirror,
} from '@resourceful/test-support';
import fc from 'fast-check';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_NEGOTIATION_DEFAULTS,
  contentNegotiation,
  MAX_ACCEPT_HEADER_ELEMENTS,
  MAX_ACCEPT_HEADER_LENGTH,
} from '../src/index.js';
import { buildApp } from './app.js';

const HEADERS = ['Accept', 'Accept-Charset', 'Accept-Language', 'Accept-Encoding'] as const;

describeEachExpress('hostile Accept* headers', (express) => {
  // Node refuses headers over 16 KiB with 431 by default; a service reading bigger ones
  // (payments-api allows 64 KiB) must still parse them cheaply.
  const app = createServer(
    { maxHeaderSize: 256 * 1024 },
    buildApp(express, { jsonp: true, languages: ['en', 'fr'] }),
  );

  describe.each(HEADERS)('%s', (name) => {
    it.each([
      ['64 KiB of one range', 'a'.repeat(64 * 1024)],
      [
        'thousands of ranges',
        Array.from({ length: 3000 }, (_, i) => `x/y${i};q=0.${i % 10}`).join(','),
      ],
      ['an unclosed quote before many commas', `a/b;x="${','.repeat(20_000)}`],
    ])('answers 400 naming the header for %s', async (_title, value) => {
      const res = await request(app).get('/card').set(name, value);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: name });
    });

    it(`reads a header of ${MAX_ACCEPT_HEADER_LENGTH} characters and ${MAX_ACCEPT_HEADER_ELEMENTS} elements`, async () => {
      const element = name === 'Accept' ? '*/*' : '*';
      const elements = Array.from({ length: MAX_ACCEPT_HEADER_ELEMENTS }, () => element);
      const value = elements.join(',').padEnd(MAX_ACCEPT_HEADER_LENGTH, ' ');
      const res = await request(app).get('/card').set(name, value);
      expect(res.status).toBe(200);
    });
  });

  // Names of Object.prototype's properties, looked up in the package's tables of names.
  const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  it.each(PROTOTYPE_NAMES)(
    'answers 400 naming the accept parameter for ?accept=%s, never a 500',
    async (value) => {
      const res = await request(app).get(`/card?accept=${value}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'accept' });
    },
  );

  it.each(PROTOTYPE_NAMES)(
    'answers 415 naming Content-Encoding for a JSON body with Content-Encoding: %s, and keeps serving',
    async (coding) => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', coding)
        .send('{"a":1}');
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Encoding' });
      expect((await request(app).get('/card')).status).toBe(200);
    },
  );

  // RFC 9110 §12.4.2: a weight is a qvalue; anything else is the client's bug, named.
  it.each([
    ['Accept', 'application/json;q=abc'],
    ['Accept', 'application/json;q=2'],
    ['Accept', 'application/json;q=-1'],
    ['Accept', 'application/json;q='],
    ['Accept', 'application/json; Q = 1.5'],
    ['Accept', 'application/xml;q=0.5, application/json;q=0x1'],
    ['Accept-Charset', 'utf-8;q=abc'],
    ['Accept-Encoding', 'gzip;q=high'],
    ['Accept-Language', 'fr;q=1e0'],
  ])(
    'answers 400 naming %s for a weight that is no number from 0 to 1: %s',
    async (name, value) => {
      for (const method of ['GET', 'POST'] as const) {
        const res = await (method === 'GET'
          ? request(app).get('/card')
          : request(app).post('/echo')
        )
          .set(name, value)
          .set('Content-Type', 'application/json')
          .send(method === 'POST' ? '{}' : undefined);
        expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: name });
        expect(res.headers['content-type']).toMatch(/^application\/json/);
      }
    },
  );

  // The query parameter is read by the same parser as the header: the same bounds keep it linear.
  it.each([
    ['an unclosed quote before many commas', `a/b;x="${','.repeat(20_000)}`],
    ['more than 64 ranges', Array.from({ length: 100 }, () => 'x/y;a=1').join(',')],
  ])(
    'answers 400 naming the accept query parameter for %s, as for the header',
    async (_, value) => {
      const res = await request(app).get(`/card?accept=${encodeURIComponent(value)}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'accept' });
    },
  );

  it('reads an accept query parameter listing ranges within the bounds', async () => {
    const res = await request(app).get(
      `/card?accept=${encodeURIComponent('application/xml;q=0.5, text/xml;q=0.9')}`,
    );
    expect([res.status, res.type]).toEqual([200, 'text/xml']);
  });

  it('answers 400 naming the accept query parameter for a weight in it that is none', async () => {
    const res = await request(app).get('/card?accept=application/json;q=abc');
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'accept' });
  });

  it.each([
    // Java's HttpURLConnection sends this by default.
    ['Accept', 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2', 200],
    ['Accept', 'application/json;q=0.5000', 200],
    ['Accept', 'application/json;q=1.', 200],
    // A quoted parameter value is not a weight (406: no type has the parameter, not 400).
    ['Accept', 'application/json;v="a;q=abc,b"', 406],
    ['Accept', 'application/json;q=0', 406],
    ['Accept-Charset', 'utf-8;q=0.001', 200],
    ['Accept-Encoding', 'gzip;q=1.000', 200],
  ])('reads the weights clients write: %s: %s answers %i', async (name, value, status) => {
    const res = await request(app).get('/card').set(name, value);
    expect(res.status).toBe(status);
  });

  it.each([
    ['Accept', 'application/json;q=abc'],
    ['Accept', 'application/json;;;=;q'],
    ['Accept', '*/*;q=0.5;q=0.7;level=1;foo="a,b"'],
    ['Accept', '/,/;,'],
    ['Accept-Charset', ';;;,'],
    ['Accept-Encoding', 'gzip;q=2, br;q=-1'],
    ['Accept-Language', 'q=1;fr'],
  ])('never answers 5xx for %s: %s', async (name, value) => {
    const res = await request(app).get('/card').set(name, value);
    expect(res.status).toBeLessThan(500);
  });

  it('never answers 5xx for random Accept* values (seeded)', async () => {
    const token = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...HEADERS), token), { maxLength: 4 }),
        async (headers) => {
          let req = request(app).get('/card?callback=cb');
          for (const [name, value] of headers) req = req.set(name, value);
          const res = await req;
          expect(res.status).toBeLessThan(500);
        },
      ),
      { seed: 7, numRuns: 120 },
    );
  });
});

describeEachExpress('deep request bodies echoed in XML', (express) => {
  const app = buildApp(express);

  it('answers 200 with the whole value for a body nested 1100 levels, as JSON does', async () => {
    const body = `${'{"a":'.repeat(1100)}1${'}'.repeat(1100)}`;
    const send = (accept: string) =>
      request(app)
        .post('/echo')
        .set({ 'Content-Type': 'application/json', Accept: accept })
        .send(body);
    const [json, xml] = [await send('application/json'), await send('application/xml')];
    expect(json.status).toBe(201);
    expect(xml.status).toBe(201);
    expect(xml.type).toBe('application/xml');
    expect(parseXmlMirror(xml.text)).toEqual(json.body);
  });
});

describeEachExpress('where it is mounted', (express) => {
  function faults(build: (app: ReturnType<typeof express>) => void) {
    const seen: unknown[] = [];
    const app = express();
    build(app);
    app.get('/x', (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorHandler({ onError: ({ cause }) => seen.push(cause) }));
    return { app, seen };
  }

  it('fails loudly (500, ERR_CONTENT_NEGOTIATION_ORDER) after conditionalRequests()', async () => {
    const { app, seen } = faults((a) => {
      a.use(conditionalRequests());
      a.use(contentNegotiation());
    });
    const res = await request(app).get('/x');
    expect(res.status).toBe(500);
    expect(seen).toHaveLength(1);
    expect((seen[0] as { code?: string }).code).toBe('ERR_CONTENT_NEGOTIATION_ORDER');
    expect(String((seen[0] as Error).message)).toMatch(/before conditionalRequests/);
  });

  it('fails loudly after a body parser', async () => {
    const { app, seen } = faults((a) => {
      a.use(express.json());
      a.use(contentNegotiation());
    });
    const res = await request(app).post('/x').send({ a: 1 });
    expect(res.status).toBe(500);
    expect(String((seen[0] as Error).message)).toMatch(/before the body parsers/);
  });
});

describe('options', () => {
  it.each([[undefined], [{}], [{ xml: undefined, jsonp: undefined, compression: undefined }]])(
    'accepts the defaults %j',
    (options) => {
      expect(() => contentNegotiation(options)).not.toThrow();
    },
  );

  it('documents its defaults', () => {
    expect(CONTENT_NEGOTIATION_DEFAULTS).toEqual({
      xml: true,
      jsonp: false,
      threshold: 0,
      level: -1,
      maxBodyBytes: 102400,
    });
  });

  it.each([
    [{ jsnop: true }, /unknown option "jsnop".*Did you mean "jsonp"/],
    [{ xml: 'yes' }, /"xml" must be true or false/],
    [{ languages: [] }, /"languages" must be a non-empty array/],
    [{ languages: ['en', 'not a tag'] }, /"languages" must be language tags such as "en"/],
    [
      { languages: ['en', 'fr', 'EN'] },
      /"languages" must be distinct language tags, got the string "EN"/,
    ],
    [{ compression: { threshold: -1 } }, /"compression.threshold"/],
    [{ compression: { level: 12 } }, /"compression.level"/],
    [
      { compression: { treshold: 1 } },
      /unknown option "compression.treshold".*Did you mean "compression.threshold"/,
    ],
    [{ compression: null }, /"compression" must be false or an object/],
    [{ maxBodyBytes: 0 }, /"maxBodyBytes" must be a positive integer/],
    [null, /options must be an object/],
  ])('refuses %j at construction, with a stable code', (options, message) => {
    expect(() => contentNegotiation(options as never)).toThrow(message);
    expect(() => contentNegotiation(options as never)).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^ERR_RESOURCEFUL_/) }),
    );
  });

  it('names an unknown key inside "compression" by its path, in the factory\'s name', () => {
    expect(() => contentNegotiation({ compression: { treshold: 1 } as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
        factory: 'contentNegotiation',
        option: 'compression.treshold',
      }),
    );
  });

  it('does not change the options object', () => {
    const options = Object.freeze({
      languages: Object.freeze(['en']),
      compression: Object.freeze({}),
    });
    expect(() => contentNegotiation(options)).not.toThrow();
  });
});
