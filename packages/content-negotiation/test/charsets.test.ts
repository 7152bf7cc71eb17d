import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  parseRawResponses,
  parseXmlMirror,
  rawExchange,
} from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { CONTENT_NEGOTIATION_DEFAULTS, contentNegotiation } from '../src/index.js';
import { asIs, buildApp, bytes, CARD } from './app.js';

describeEachExpress('charsets (RFC 9110 §12.5.2, §8.3.2)', (express) => {
  const app = buildApp(express);

  describe.each([
    [undefined, 'utf-8'],
    ['utf-8', 'utf-8'],
    ['*', 'utf-8'],
    ['iso-8859-1', 'ISO-8859-1'],
    ['ISO-8859-1', 'ISO-8859-1'],
    ['latin1', 'ISO-8859-1'],
    ['l1', 'ISO-8859-1'],
    ['iso_8859-1:1987', 'ISO-8859-1'],
    ['iso-ir-100', 'ISO-8859-1'],
    ['cp819', 'ISO-8859-1'],
    ['csISOLatin1', 'ISO-8859-1'],
    ['utf-8;q=0.5, iso-8859-1', 'ISO-8859-1'],
    ['iso-8859-1;q=0.5, utf-8', 'utf-8'],
    ['utf-8;q=0, *', 'ISO-8859-1'],
    ['shift_jis', 'utf-8'],
    ['utf-8;q=0, iso-8859-1;q=0', 'utf-8'],
  ])('when "Accept-Charset: %s"', (acceptCharset, expected) => {
    it(`answers ${expected}, and the data survives`, async () => {
      const req = request(app).get('/card').buffer(true).parse(bytes);
      const res = await (acceptCharset === undefined
        ? req
        : req.set('Accept-Charset', acceptCharset));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(`application/json; charset=${expected}`);
      const body = res.body as Buffer;
      const text = body.toString(expected === 'utf-8' ? 'utf8' : 'latin1');
      expect(JSON.parse(text)).toEqual(CARD);
      if (expected !== 'utf-8') {
        expect(text).toContain('Zo\u00eb \u00d8deg\u00e5rd');
        expect(text).toContain('\\u20ac \\ud83d\\ude00');
        expect([...body].every((byte) => byte <= 0xff)).toBe(true);
      }
      expect(res.headers.vary).toMatch(/Accept-Charset/);
    });
  });

  it('writes Latin-1 XML with character references for the rest', async () => {
    const res = await request(app)
      .get('/card')
      .set('Accept', 'application/xml')
      .set('Accept-Charset', 'iso-8859-1')
      .buffer(true)
      .parse(bytes);
    expect(res.headers['content-type']).toBe('application/xml; charset=ISO-8859-1');
    const text = (res.body as Buffer).toString('latin1');
    expect(text.startsWith('<?xml version="1.0" encoding="ISO-8859-1"?>')).toBe(true);
    expect(text).toContain('&#x20AC;');
    expect(parseXmlMirror(text)).toEqual(CARD);
  });

  it('gives the Latin-1 answer its own tag', async () => {
    const utf8 = await request(app).get('/card');
    const latin1 = await request(app).get('/card').set('Accept-Charset', 'latin1');
    expect(latin1.headers.etag).not.toBe(utf8.headers.etag);
    expect(String(latin1.headers.etag)).toMatch(/~latin1/);
  });

  describe('request bodies', () => {
    const latin1Body = Buffer.from('{"name":"Zoë Ødegård","note":"\\u20ac"}', 'latin1');
    /** POSTs `body` as it is with `headers`: the status and the body of the answer. */
    const echo = async (headers: Record<string, string>, body: string | Buffer) => {
      const res = await request(app).post('/echo').set(headers).serialize(asIs).send(body);
      return [res.status, res.body as unknown];
    };
    const ECHOED = [201, { received: { a: 'é' } }];

    it.each([
      'application/json; charset=iso-8859-1',
      'application/json; charset=ISO-8859-1',
      'application/json; charset="latin1"',
      'application/merge-patch+json; charset=l1',
    ])('decodes %s and processes it like UTF-8', async (type) => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', type)
        .serialize(asIs)
        .send(latin1Body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ received: { name: 'Zoë Ødegård', note: '€' } });
    });

    // express.json() reads only charsets named utf-…; these name UTF-8 (or its ASCII subset) too.
    it.each(['us-ascii', 'utf8', 'csUTF8'])(
      'reads a body declared charset=%s as UTF-8, coded or not',
      async (charset) => {
        const type = `application/json; charset=${charset}`;
        const text = '{"a":"é"}';
        expect(await echo({ 'Content-Type': type }, text)).toEqual(ECHOED);
        const coded = gzipSync(Buffer.from(text));
        expect(await echo({ 'Content-Type': type, 'Content-Encoding': 'gzip' }, coded)).toEqual(
          ECHOED,
        );
      },
    );

    it.each(['utf-16', 'koi8-r', 'nonsense'])(
      'answers 415 naming Content-Type for charset=%s',
      async (charset) => {
        const res = await request(app)
          .post('/echo')
          .set('Content-Type', `application/json; charset=${charset}`)
          .send('{}');
        expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
      },
    );

    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ])('inflates a body sent with Content-Encoding: %s', async (coding, code) => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', coding)
        .serialize(asIs)
        .send(code(Buffer.from('{"a":"é"}')));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ received: { a: 'é' } });
    });

    it('inflates and decodes a gzip Latin-1 body', async () => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json; charset=iso-8859-1')
        .set('Content-Encoding', 'gzip')
        .serialize(asIs)
        .send(gzipSync(latin1Body));
      expect(res.body).toEqual({ received: { name: 'Zoë Ødegård', note: '€' } });
    });

    it('answers 413 for a small body that inflates past the limit', async () => {
      const bomb = gzipSync(Buffer.from(`{"a":"${'0'.repeat(5 * 1024 * 1024)}"}`));
      expect(bomb.length).toBeLessThan(10 * 1024);
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .serialize(asIs)
        .send(bomb);
      expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
      expect(res.body.error.innererror).toEqual({
        code: 'BODY_TOO_LARGE',
        max_bytes: CONTENT_NEGOTIATION_DEFAULTS.maxBodyBytes,
      });
    });

    it('answers 400 naming Content-Encoding for a corrupt gzip body', async () => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .serialize(asIs)
        .send(Buffer.from('not gzip at all'));
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST', target: 'Content-Encoding' });
    });

    it('answers 400 naming Content-Encoding for a gzip body of no bytes, which is no gzip stream', async () => {
      const res = await request(app)
        .post('/echo')
        .set({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
        .set('Content-Length', '0')
        .serialize(asIs)
        .send(Buffer.alloc(0));
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST', target: 'Content-Encoding' });
    });

    // RFC 9110 §5.6.1.2: empty list elements are ignored; identity is no coding (§8.4.1).
    it.each(['', ' ', 'identity', 'Identity, '])(
      'reads a body with "Content-Encoding: %s" as an uncoded one, as express.json() does',
      async (coding) => {
        const headers = { 'Content-Type': 'application/json', 'Content-Encoding': coding };
        expect(await echo(headers, '{"a":"é"}')).toEqual(ECHOED);
      },
    );

    it.each(['identity, gzip', 'gzip,', ' , GZIP'])(
      'inflates a body with "Content-Encoding: %s"',
      async (coding) => {
        const headers = { 'Content-Type': 'application/json', 'Content-Encoding': coding };
        expect(await echo(headers, gzipSync(Buffer.from('{"a":"é"}')))).toEqual(ECHOED);
      },
    );

    it('answers 415 naming Content-Encoding for stacked codings (gzip, gzip)', async () => {
      const res = await request(app)
        .post('/echo')
        .set({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip, gzip' })
        .serialize(asIs)
        .send(gzipSync(gzipSync(Buffer.from('{}'))));
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Encoding' });
    });

    it('answers 415 naming Content-Encoding for a coding it cannot read', async () => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'compress')
        .send('{}');
      expectErrorEnvelope(res, 415, { target: 'Content-Encoding' });
    });

    it('answers 400 for a Latin-1 body that is not JSON', async () => {
      const res = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json; charset=latin1')
        .serialize(asIs)
        .send(Buffer.from('{nope', 'latin1'));
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
    });

    // express.json() is strict by default: a body that is not an object or an array is a 400,
    // so a route may read `req.body.name`; a Latin-1 or compressed body must not get past that.
    describe.each([
      [
        'Latin-1',
        { 'Content-Type': 'application/json; charset=iso-8859-1' },
        (text: string) => Buffer.from(text, 'latin1'),
      ],
      [
        'gzip',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        (text: string) => gzipSync(Buffer.from(text)),
      ],
    ])('a %s body that is not a JSON object or array', (_, headers, encode) => {
      it.each(['null', '42', ' "text"', 'true'])(
        'answers %s with the 400 express.json() gives it',
        async (text) => {
          const res = await request(app)
            .post('/echo')
            .set(headers)
            .serialize(asIs)
            .send(encode(text));
          const utf8 = await request(app)
            .post('/echo')
            .set('Content-Type', 'application/json')
            .serialize(asIs)
            .send(text);
          expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
          expect(res.body).toEqual(utf8.body);
        },
      );
    });

    // body-parser reads a body of zero bytes (after inflating and decoding, a byte order mark
    // dropped) as `{}`, "a common client-side mistake"; whitespace alone is not JSON (400).
    const noBytes = ['no bytes', ''];
    const onlyWhitespace = ['only whitespace', ' \n'];
    // Latin-1 has no byte order mark: its byte 0xFF is the character ÿ.
    const onlyByteOrderMark = ['only a UTF-8 byte order mark', '\uFEFF'];
    describe.each([
      [
        'Latin-1',
        { 'Content-Type': 'application/json; charset=iso-8859-1' },
        (text: string) => Buffer.from(text, 'latin1'),
        [noBytes, onlyWhitespace],
      ],
      [
        'gzip',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        (text: string) => gzipSync(Buffer.from(text)),
        [noBytes, onlyByteOrderMark, onlyWhitespace],
      ],
      [
        'br',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'br' },
        (text: string) => brotliCompressSync(Buffer.from(text)),
        [noBytes, onlyByteOrderMark, onlyWhitespace],
      ],
    ])('a %s body with no JSON text', (_, headers, encode, cases) => {
      it.each(cases)('answers %s as express.json() answers it', async (_name, text) => {
        const utf8 = await echo({ 'Content-Type': 'application/json' }, Buffer.from(text));
        expect(await echo(headers, encode(text))).toEqual(utf8);
      });
    });

    it('reads a gzip UTF-8 body that starts with a byte order mark, as express.json() does', async () => {
      const text = '\uFEFF{"a":"é"}';
      const res = await request(app)
        .post('/echo')
        .set({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
        .serialize(asIs)
        .send(gzipSync(Buffer.from(text)));
      const utf8 = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .serialize(asIs)
        .send(Buffer.from(text));
      expect(utf8.status).toBe(201);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ received: { a: 'é' } });
    });

    it('leaves UTF-8 bodies to the app’s parser', async () => {
      const res = await request(app).post('/echo').send({ a: 'é' });
      expect(res.body).toEqual({ received: { a: 'é' } });
    });
  });
});

describeEachExpress('a request body over maxBodyBytes', (express) => {
  const maxBodyBytes = 64;
  const app = express();
  app.use(contentNegotiation({ maxBodyBytes }));
  // express.json() gets the same bound: UTF-8 identity bodies are its to read.
  app.use(express.json({ limit: maxBodyBytes }));
  app.post('/echo', (req, res) => {
    res.status(201).json({ received: req.body as unknown });
  });
  app.use(errorHandler());
  const overLimit = `{"note":"${'a'.repeat(maxBodyBytes)}"}`;
  /** POSTs `body` as it is with `headers`. */
  const post = (headers: Record<string, string>, body: Buffer) =>
    request(app).post('/echo').set(headers).serialize(asIs).send(body);
  const latin1 = () =>
    post(
      { 'Content-Type': 'application/json; charset=iso-8859-1' },
      Buffer.from(overLimit, 'latin1'),
    );

  it.each([
    ['a Latin-1 body whose Content-Length is over it', latin1],
    [
      'a gzip body that inflates past it',
      () =>
        post(
          { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          gzipSync(Buffer.from(overLimit)),
        ),
    ],
  ])('answers 413 with the bound in innererror.max_bytes for %s', async (_, send) => {
    const res = await send();
    expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
    expect(res.body.error).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: `The request body is larger than ${maxBodyBytes} bytes.`,
      innererror: { code: 'BODY_TOO_LARGE', max_bytes: maxBodyBytes },
    });
  });

  // Empty gzip members inflate to nothing: only a bound on the bytes received ends such a body.
  const nothingInflated = Buffer.concat(Array.from({ length: 40 }, () => gzipSync('')));

  it('answers 413 for a gzip body longer than the bound that inflates to nothing', async () => {
    const res = await post(
      { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      nothingInflated,
    );
    expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 413 for such a body sent chunked, with no Content-Length', async () => {
    const server = await listen(app);
    try {
      const head = `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
      const chunk = Buffer.concat([
        Buffer.from(`${nothingInflated.length.toString(16)}\r\n`),
        nothingInflated,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);
      const exchanged = await rawExchange(server.port, [head, chunk]);
      const [answer] = parseRawResponses(exchanged.text, ['POST']);
      expect(answer?.status).toBe(413);
    } finally {
      await server.close();
    }
  });

  it('reads a gzip body of incompressible bytes a little longer than the bound it inflates within', async () => {
    const text = `{"n":"${randomBytes(42).toString('base64')}"}`;
    const coded = gzipSync(Buffer.from(text), { level: 0 });
    expect(text.length).toBeLessThanOrEqual(maxBodyBytes);
    expect(coded.length).toBeGreaterThan(maxBodyBytes);
    const res = await post(
      { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      coded,
    );
    expect(res.status).toBe(201);
  });

  it("answers with the envelope error-envelope gives express.json()'s refusal of a UTF-8 body", async () => {
    const parsers = await post({ 'Content-Type': 'application/json' }, Buffer.from(overLimit));
    expectErrorEnvelope(parsers, 413, { code: 'PAYLOAD_TOO_LARGE' });
    expect((await latin1()).body).toEqual(parsers.body);
  });
});
