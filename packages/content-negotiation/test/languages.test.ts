import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import {
  contentNegotiation,
  getLanguage,
  getNegotiated,
  lookupLanguage,
  parseAcceptLanguage,
} from '../src/index.js';
import { buildApp } from './app.js';

describe('lookupLanguage (RFC 4647 §3.4)', () => {
  const available = ['en', 'fr', 'fr-CA', 'zh-Hant'];

  it.each([
    [undefined, 'en'],
    ['fr', 'fr'],
    ['FR', 'fr'],
    ['fr-CA', 'fr-CA'],
    ['fr-BE', 'fr'],
    ['fr-CA-x-private', 'fr-CA'],
    ['zh-Hant-CN', 'zh-Hant'],
    ['zh-Hans', 'en'],
    ['de, fr;q=0.5', 'fr'],
    ['de;q=0.9, fr-CA;q=0.8, en;q=0.1', 'fr-CA'],
    ['en;q=0.5, fr', 'fr'],
    ['*', 'en'],
    ['de', 'en'],
    ['fr;q=0, fr-CA', 'fr-CA'],
    ['fr-CA;q=0, fr', 'fr'],
    ['fr;q=0', 'en'],
    ['fr-BE, fr;q=0', 'en'],
    ['not a tag!, fr', 'fr'],
    ['fr;q=2, en', 'en'],
    [';;;,,,', 'en'],
    // Weights as the bounds check takes them (and negotiator reads them for the other Accept*).
    ['en;q=.1, fr;q=.9', 'fr'],
    ['en;q=0.1, fr;q=0.9001', 'fr'],
    ['en;q=.0, *', 'fr'],
    // RFC 9110 §12.5.4: "*" matches every language no other range of the header matches, so
    // never one refused with q=0; with every language refused, the default.
    ['en;q=0, *', 'fr'],
    ['en;q=0, fr;q=0, *', 'zh-Hant'],
    ['en-GB;q=0, *', 'en'],
    ['en;q=0, fr;q=0, fr-CA;q=0, zh;q=0, *', 'en'],
    ['de, *;q=0.5, en;q=0', 'fr'],
  ])('"Accept-Language: %s" chooses %s', (header, expected) => {
    expect(lookupLanguage(header, available, 'en')).toBe(expected);
  });

  it('orders ranges by q-value, then by the client’s order', () => {
    expect(parseAcceptLanguage('a;q=0.5, b, c;q=0.5, d').map((r) => r.range)).toEqual([
      'b',
      'd',
      'a',
      'c',
    ]);
  });
});

describeEachExpress('Accept-Language', (express) => {
  const app = buildApp(express, { languages: ['en', 'fr'] });

  it.each([
    ['fr', 'fr', 'Bonjour'],
    ['fr-CA, en;q=0.5', 'fr', 'Bonjour'],
    ['de', 'en', 'Hello'],
    [undefined, 'en', 'Hello'],
  ])('"%s" answers in %s with Content-Language and Vary', async (header, language, text) => {
    const req = request(app).get('/greeting');
    const res = await (header === undefined ? req : req.set('Accept-Language', header));
    expect(res.body).toEqual({ text });
    expect(res.headers['content-language']).toBe(language);
    expect(res.headers.vary).toMatch(/Accept-Language/);
  });

  it('answers "Accept-Language: en;q=0, *" in the language not refused', async () => {
    const res = await request(app).get('/greeting').set('Accept-Language', 'en;q=0, *');
    expect(res.body).toEqual({ text: 'Bonjour' });
    expect(res.headers['content-language']).toBe('fr');
  });

  it('exposes the language as req.language, and reading it marks the answer', async () => {
    const res = await request(app).get('/plain').set('Accept-Language', 'fr');
    expect(res.body).toEqual({ language: 'read' });
    expect(res.headers['content-language']).toBe('fr');
  });

  it('sends no Content-Language on answers that did not use the language', async () => {
    const res = await request(app).get('/card').set('Accept-Language', 'fr');
    expect(res.headers['content-language']).toBeUndefined();
    expect(res.headers.vary).not.toMatch(/Accept-Language/);
  });

  it('keeps error messages unlocalized, without Content-Language', async () => {
    const res = await request(app).get('/missing').set('Accept-Language', 'fr');
    expect(res.status).toBe(404);
    expect(res.headers['content-language']).toBeUndefined();
  });

  it('negotiates no language without the languages option', async () => {
    const plain = buildApp(express);
    const res = await request(plain).get('/plain').set('Accept-Language', 'fr');
    expect(res.body).toEqual({ language: 'none' });
    expect(res.headers['content-language']).toBeUndefined();
  });

  // Two negotiations on one request, the language read between them: the later one (without
  // languages) finds the language read, and its hook, which runs first, lists Accept-Language.
  it.each([
    ['identity', undefined, 'Accept, Accept-Charset, Accept-Language, Accept-Encoding'],
    ['gzip', 'gzip', 'Accept-Encoding, Accept, Accept-Charset, Accept-Language'],
  ])(
    'merges one Vary, in one order, when two negotiations answer one request (%s)',
    async (coding, encoding, vary) => {
      const twice = express();
      twice.use(contentNegotiation({ languages: ['en', 'fr'] }));
      twice.use((req, _res, next) => {
        getLanguage(req);
        next();
      });
      twice.use(contentNegotiation());
      twice.get('/x', (_req, res) => {
        res.json({ ok: true });
      });
      const res = await request(twice)
        .get('/x')
        .set('Accept-Language', 'fr')
        .set('Accept-Encoding', coding);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-language']).toBe('fr');
      expect(res.headers.vary).toBe(vary);
    },
  );

  it('reads what another copy of the package loaded in the process negotiated', async () => {
    vi.resetModules();
    const other = await import('../src/index.js');
    expect(other.getLanguage).not.toBe(getLanguage);
    const copied = express();
    copied.use(other.contentNegotiation({ languages: ['en', 'fr'] }));
    copied.get('/read', (req, res) => {
      res.json({ language: getLanguage(req), format: getNegotiated(req)?.format });
    });
    const res = await request(copied).get('/read').set('Accept-Language', 'fr');
    expect(res.body).toEqual({ language: 'fr', format: 'json' });
    // The other copy saw this copy's mark that the language was read.
    expect(res.headers['content-language']).toBe('fr');
    expect(res.headers.vary).toMatch(/Accept-Language/);
  });
});
