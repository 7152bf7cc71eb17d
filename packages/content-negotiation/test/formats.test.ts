import {
  describeEachExpress,
  expectErrorEnvelope,
  parseXmlMirror,
} from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildApp, CARD } from './app.js';

describeEachExpress('formats (RFC 9110 §12.5.1)', (express) => {
  const app = buildApp(express);
  const withJsonp = buildApp(express, { jsonp: true });

  describe.each([
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['application/json', 'application/json'],
    ['application/xml', 'application/xml'],
    ['APPLICATION/XML', 'application/xml'],
    ['text/xml', 'text/xml'],
    ['text/*', 'text/xml'],
    ['application/xml;q=0.5, application/json', 'application/json'],
    ['application/json;q=0.5, application/xml', 'application/xml'],
    ['application/json;q=0, */*', 'application/xml'],
    ['*/*;q=0.1, text/xml', 'text/xml'],
    ['application/xml, application/json', 'application/xml'],
    ['text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8', 'application/xml'],
    ['application/json; charset=utf-8', 'application/json'],
  ])('when "Accept: %s"', (accept, expected) => {
    it(`answers ${expected}`, async () => {
      const req = request(app).get('/card');
      const res = await (accept === undefined ? req : req.set('Accept', accept));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(`${expected}; charset=utf-8`);
      expect(res.headers.vary).toMatch(/\bAccept\b/);
      const body = expected === 'application/json' ? res.body : parseXmlMirror(res.text);
      expect(body).toEqual(CARD);
    });
  });

  describe.each([
    'image/png',
    'application/json;q=0',
    'text/html',
    'text/javascript',
    'application/json;q=0, application/xml;q=0, text/xml;q=0',
  ])('when "Accept: %s"', (accept) => {
    it('answers 406 in JSON, listing the available media types', async () => {
      const res = await request(app).get('/card').set('Accept', accept);
      expectErrorEnvelope(res, 406, { code: 'NOT_ACCEPTABLE', target: 'Accept' });
      expect(res.body.error.details.map((d: { message: string }) => d.message)).toEqual([
        'application/json',
        'application/xml',
        'text/xml',
      ]);
      expect(res.headers.vary).toMatch(/\bAccept\b/);
    });
  });

  describe('the short form ?accept=', () => {
    it.each([
      ['json', 'application/json'],
      ['xml', 'application/xml'],
      ['XML', 'application/xml'],
      ['application/xml', 'application/xml'],
      ['text/xml', 'text/xml'],
    ])('?accept=%s answers %s', async (value, expected) => {
      const res = await request(app).get(`/card?accept=${encodeURIComponent(value)}`);
      expect(res.headers['content-type']).toBe(`${expected}; charset=utf-8`);
    });

    it('wins over the Accept header', async () => {
      const res = await request(app).get('/card?accept=xml').set('Accept', 'application/json');
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    });

    it.each(['yaml', '', 'xml&accept=json', 'a%0Ab'])(
      'answers 400 naming accept for ?accept=%s',
      async (value) => {
        const res = await request(app).get(`/card?accept=${value}`);
        expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'accept' });
      },
    );

    it('answers 406 for a media type that is not served', async () => {
      const res = await request(app).get('/card?accept=image/png');
      expectErrorEnvelope(res, 406, { code: 'NOT_ACCEPTABLE' });
    });

    it('answers 406 for jsonp while JSONP is off', async () => {
      const res = await request(app).get('/card?accept=jsonp&callback=cb');
      expectErrorEnvelope(res, 406, { code: 'NOT_ACCEPTABLE' });
    });
  });

  describe('Vary', () => {
    it('merges Accept into the Vary a route set, never overwriting it', async () => {
      const merged = express();
      merged.use((await import('../src/index.js')).contentNegotiation());
      merged.get('/x', (_req, res) => {
        res.set('Vary', 'Prefer').json({ ok: true });
      });
      const res = await request(merged).get('/x');
      expect(String(res.headers.vary).split(', ').sort()).toEqual([
        'Accept',
        'Accept-Charset',
        'Accept-Encoding',
        'Prefer',
      ]);
      expect(String(res.headers.vary).startsWith('Prefer')).toBe(true);
    });
  });

  describe('error envelopes', () => {
    it('are XML for an XML client, the same envelope as the JSON one', async () => {
      const xml = await request(app).get('/missing').set('Accept', 'application/xml');
      const json = await request(app).get('/missing');
      expect(xml.status).toBe(404);
      expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(xml.headers['error-code']).toBe('NOT_FOUND');
      expect(parseXmlMirror(xml.text)).toEqual(json.body);
    });

    it('are JSON when the negotiation itself failed (400 for the short form)', async () => {
      const res = await request(app).get('/missing?accept=nope').set('Accept', 'application/xml');
      expectErrorEnvelope(res, 400, { target: 'accept' });
    });

    it('are JSONP for a JSONP client with a valid callback', async () => {
      const res = await request(withJsonp)
        .get('/missing?callback=cb')
        .set('Accept', 'text/javascript');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.text).toMatch(/^\/\*\*\/ typeof cb === 'function' && cb\(\{"error":/);
    });
  });

  describe('JSONP (text/javascript)', () => {
    it('calls the callback with the JSON, guarded, with nosniff', async () => {
      const res = await request(withJsonp)
        .get('/card?callback=app.cards.onLoad')
        .set('Accept', 'text/javascript');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.text).toBe(
        `/**/ typeof app.cards.onLoad === 'function' && app.cards.onLoad(${JSON.stringify(CARD)});`,
      );
    });

    it('escapes U+2028 and U+2029', async () => {
      const lines = express();
      lines.use((await import('../src/index.js')).contentNegotiation({ jsonp: true }));
      lines.get('/x', (_req, res) => {
        res.json({ text: 'a\u2028b\u2029c' });
      });
      const res = await request(lines).get('/x?accept=jsonp&callback=cb');
      expect(res.text).toContain('a\\u2028b\\u2029c');
      expect(res.text).not.toMatch(/[\u2028\u2029]/);
    });

    it.each([
      ['no callback', ''],
      ['an empty callback', 'callback='],
      ['code', 'callback=alert(1)'],
      ['a space', 'callback=a%20b'],
      ['a leading digit', 'callback=1cb'],
      ['brackets', 'callback=a%5B0%5D'],
      ['a statement', 'callback=cb%3Bx'],
      ['two callbacks', 'callback=a&callback=b'],
      ['a name of 129 characters', `callback=${'a'.repeat(129)}`],
      ['a trailing dot', 'callback=a.'],
    ])('answers 400 naming callback for %s', async (_title, query) => {
      const res = await request(withJsonp).get(`/card?${query}`).set('Accept', 'text/javascript');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'callback' });
    });

    it('accepts a callback of 128 characters', async () => {
      const res = await request(withJsonp)
        .get(`/card?callback=${'a'.repeat(128)}`)
        .set('Accept', 'text/javascript');
      expect(res.status).toBe(200);
    });

    it('is not offered to a POST (GET and HEAD only): 406', async () => {
      const res = await request(withJsonp)
        .post('/echo?callback=cb')
        .set('Accept', 'text/javascript')
        .send({ a: 1 });
      expectErrorEnvelope(res, 406, { code: 'NOT_ACCEPTABLE' });
    });

    it.each([
      'text/javascript, application/javascript, application/ecmascript, application/x-ecmascript, */*; q=0.01',
      'text/javascript, application/json',
      'text/javascript, application/xml;q=0.5',
    ])('serves another accepted format without ?callback= (Accept: %s)', async (accept) => {
      const res = await request(withJsonp).get('/card').set('Accept', accept);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).not.toMatch(/^text\/javascript/);
    });

    it('answers 404, not 400 for callback, for a missing resource to a script-first Accept', async () => {
      const res = await request(withJsonp)
        .get('/missing')
        .set('Accept', 'text/javascript, application/json');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });

    it('answers 400 naming callback to ?accept=jsonp without one', async () => {
      const res = await request(withJsonp).get('/card?accept=jsonp');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'callback' });
    });

    it('is not chosen for */* (JSON comes first)', async () => {
      const res = await request(withJsonp).get('/card?callback=cb').set('Accept', '*/*');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    });
  });

  describe('HEAD', () => {
    it.each(['application/json', 'application/xml', 'text/xml'])(
      'answers the headers the GET answers for %s',
      async (accept) => {
        const get = await request(app)
          .get('/card')
          .set('Accept', accept)
          .set('Accept-Encoding', 'identity');
        const head = await request(app)
          .head('/card')
          .set('Accept', accept)
          .set('Accept-Encoding', 'identity');
        for (const name of ['content-type', 'content-length', 'etag', 'vary']) {
          expect(head.headers[name], name).toBe(get.headers[name]);
        }
      },
    );
  });
});
