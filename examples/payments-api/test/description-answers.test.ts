/**
 * The answers mounted before content negotiation (the README, the OpenAPI document, the
 * reference page and its assets, GraphQL): compressed as every other answer, the document's
 * own negotiation, and the assets' methods and allow-list.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import {
  describeEachExpress,
  type ExactResponse,
  exactRequest,
  expectErrorEnvelope,
  listen,
  type RunningServer,
} from '@resourceful/test-support';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { DOCS_ASSETS, DOCS_PATH, OPENAPI_PATH } from '../src/description/docs.js';
import { README_PATH } from '../src/readme.js';

const GRAPHQL_QUERY = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
const ASSETS = Object.keys(DOCS_ASSETS).map((file) => `${DOCS_PATH}/assets/${file}`);
/** Every GET answered before content negotiation, the smallest (`{ __typename }`) among them. */
const PATHS = [
  README_PATH,
  OPENAPI_PATH,
  DOCS_PATH,
  `${DOCS_PATH}/init.js`,
  ...ASSETS,
  GRAPHQL_QUERY,
  '/graphql/schema.graphql',
];

const DECODE: Readonly<Record<string, (body: Buffer) => Buffer>> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  deflate: inflateSync,
};

function decoded(res: ExactResponse): Buffer {
  const coding = res.headers['content-encoding'];
  return coding === undefined ? res.body : DECODE[coding]!(res.body);
}

function varies(res: ExactResponse, field: string): boolean {
  return (res.headers.vary ?? '')
    .split(',')
    .some((name) => name.trim().toLowerCase() === field.toLowerCase());
}

describeEachExpress('the answers mounted before content negotiation', (express) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await listen(createApp({ express }));
  });
  afterAll(() => server.close());

  describe('compression, with the codings and threshold of every other answer', () => {
    for (const path of PATHS) {
      it(`codes ${path} as Accept-Encoding prefers, the same content decoded`, async () => {
        const identity = await exactRequest(server.port, 'GET', path);
        expect(identity.status).toBe(200);
        expect(identity.headers['content-encoding']).toBeUndefined();
        expect(varies(identity, 'Accept-Encoding')).toBe(true);
        for (const [accepted, coding] of [
          ['gzip, deflate, br', 'br'],
          ['gzip', 'gzip'],
          ['deflate', 'deflate'],
          ['br;q=0, gzip;q=0.5, deflate;q=0.1', 'gzip'],
          ['identity', undefined],
        ] as const) {
          const res = await exactRequest(server.port, 'GET', path, {
            'accept-encoding': accepted,
          });
          expect(res.status, accepted).toBe(200);
          expect(res.headers['content-encoding'], accepted).toBe(coding);
          expect(varies(res, 'Accept-Encoding'), accepted).toBe(true);
          expect(decoded(res).equals(identity.body), accepted).toBe(true);
        }
      });
    }

    it('codes a GraphQL POST and the REST answers alike', async () => {
      const headers = {
        'content-type': 'application/json',
        'accept-encoding': 'gzip, deflate, br',
      };
      const graphql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      const rest = await fetch(`${server.url}/v1/risk/evaluate`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ code: 'R-1' }),
      });
      expect(graphql.headers.get('content-encoding')).toBe('br');
      expect(rest.headers.get('content-encoding')).toBe(graphql.headers.get('content-encoding'));
      expect(await graphql.json()).toEqual({ data: { __typename: 'Query' } });
    });

    it('sends a 304 without a coding, with the Vary of its 200', async () => {
      for (const path of [OPENAPI_PATH, ASSETS[0]!]) {
        const first = await exactRequest(server.port, 'GET', path, { 'accept-encoding': 'gzip' });
        const etag = first.headers.etag;
        expect(etag, path).toBeDefined();
        const again = await exactRequest(server.port, 'GET', path, {
          'accept-encoding': 'gzip',
          'if-none-match': etag!,
        });
        expect(again.status, path).toBe(304);
        expect(again.headers['content-encoding'], path).toBeUndefined();
        expect(varies(again, 'Accept-Encoding'), path).toBe(true);
      }
    });

    it('answers a range of an asset uncoded, the bytes of the file', async () => {
      const whole = await exactRequest(server.port, 'GET', ASSETS[0]!);
      const range = await exactRequest(server.port, 'GET', ASSETS[0]!, {
        'accept-encoding': 'gzip, br',
        range: 'bytes=0-99',
      });
      expect(range.status).toBe(206);
      expect(range.headers['content-encoding']).toBeUndefined();
      expect(range.body.equals(whole.body.subarray(0, 100))).toBe(true);
    });

    it('answers HEAD with the coded GET’s headers', async () => {
      for (const path of [OPENAPI_PATH, ASSETS[1]!, GRAPHQL_QUERY]) {
        const headers = { 'accept-encoding': 'br' };
        const head = await exactRequest(server.port, 'HEAD', path, headers);
        const get = await exactRequest(server.port, 'GET', path, headers);
        expect(head.body.length, path).toBe(0);
        expect(head.headers['content-encoding'], path).toBe('br');
        expect(head.headers['transfer-encoding'], path).toBe(get.headers['transfer-encoding']);
        expect(head.headers['content-length'], path).toBe(get.headers['content-length']);
      }
    });

    it('leaves another path under /graphql to the API’s 404, coded once', async () => {
      for (const method of ['GET', 'POST']) {
        const res = await exactRequest(server.port, method, '/graphql/nothing', {
          'accept-encoding': 'gzip',
        });
        expect(res.status, method).toBe(404);
        expect(res.headers['content-encoding']).toBe('gzip');
        expect(JSON.parse(decoded(res).toString('utf8')).error.code).toBe('NOT_FOUND');
      }
    });
  });

  describe('the OpenAPI document’s media types', () => {
    it.each([
      [undefined, 'application/json; charset=utf-8'],
      ['*/*', 'application/json; charset=utf-8'],
      ['application/json,*/*', 'application/json; charset=utf-8'],
      [
        'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'application/json; charset=utf-8',
      ],
      ['application/vnd.oai.openapi+json', 'application/vnd.oai.openapi+json; charset=utf-8'],
      ['application/*', 'application/json; charset=utf-8'],
    ])('answers Accept: %s with %s', async (accept, type) => {
      const call = request(server.url).get(OPENAPI_PATH);
      const res = await (accept === undefined ? call : call.set('Accept', accept));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers.vary).toMatch(/\bAccept\b/);
      expect(JSON.parse(res.text).openapi).toMatch(/^3\.1\./);
    });

    it.each(['image/png', 'application/xml', 'text/html'])(
      'answers Accept: %s with the 406 envelope listing what it has',
      async (accept) => {
        const res = await request(server.url).get(OPENAPI_PATH).set('Accept', accept);
        expectErrorEnvelope(res, 406, { code: 'NOT_ACCEPTABLE', target: 'Accept' });
        expect(res.body.error.details).toEqual([
          { code: 'AVAILABLE_MEDIA_TYPE', message: 'application/json', target: 'Accept' },
          {
            code: 'AVAILABLE_MEDIA_TYPE',
            message: 'application/vnd.oai.openapi+json',
            target: 'Accept',
          },
        ]);
        expect(res.headers.vary).toMatch(/\bAccept\b/);
      },
    );

    it('reads ?accept= as the rest of the API does', async () => {
      const json = await request(server.url).get(`${OPENAPI_PATH}?accept=json`);
      expect(json.status).toBe(200);
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      expectErrorEnvelope(await request(server.url).get(`${OPENAPI_PATH}?accept=xml`), 406, {
        code: 'NOT_ACCEPTABLE',
      });
      for (const query of ['accept=yaml!', 'accept=json&accept=json']) {
        expectErrorEnvelope(await request(server.url).get(`${OPENAPI_PATH}?${query}`), 400, {
          code: 'INVALID_REQUEST',
          target: 'accept',
        });
      }
    });

    it('refuses an Accept header longer than content negotiation reads, with a 400', async () => {
      const res = await request(server.url)
        .get(OPENAPI_PATH)
        .set('Accept', Array.from({ length: 100 }, (_, i) => `a/b${i}`).join(','));
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Accept' });
    });
  });

  describe('the reference page’s assets', () => {
    for (const path of ASSETS) {
      it(`serves ${path} with its type, and OPTIONS and 405 as every route`, async () => {
        const file = path.slice(`${DOCS_PATH}/assets/`.length);
        const get = await request(server.url).get(path);
        expect(get.status).toBe(200);
        expect(get.headers['content-type']).toBe(DOCS_ASSETS[file]);
        const options = await request(server.url).options(path);
        expect(options.status).toBe(204);
        expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
        expect(options.headers.link).toBe(
          `<${DOCS_PATH}>; rel="help", <${OPENAPI_PATH}>; rel="help"`,
        );
        for (const method of ['post', 'put', 'patch', 'delete'] as const) {
          const res = await request(server.url)[method](path);
          expectErrorEnvelope(res, 405, { code: 'METHOD_NOT_ALLOWED' });
          expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
        }
      });
    }

    it.each([
      'package.json',
      'index.html',
      'swagger-ui-bundle.js.map',
      'swagger-ui.css.map',
      'swagger-initializer.js',
      'swagger-ui-es-bundle.js',
      '%2e%2e/package.json',
      '..%2fpackage.json',
      '',
    ])('answers 404 for %s, a file of swagger-ui-dist the page does not use', async (file) => {
      const res = await request(server.url).get(`${DOCS_PATH}/assets/${file}`);
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });
  });
});

describeEachExpress('behind a PUBLIC_BASE_URL with a path', (express) => {
  // A proxy serves the service at https://api.example.com/payments: every URL a client is
  // given must carry the prefix, or it leads to another service of that host.
  const app = createApp({ express, publicBaseUrl: 'https://api.example.com/payments/' });
  const PREFIXED_HELP = `</payments${DOCS_PATH}>; rel="help", </payments${OPENAPI_PATH}>; rel="help"`;

  it('links help to the reference page and the document under the prefix, on every OPTIONS', async () => {
    for (const path of ['/v1/vault/credit-cards', DOCS_PATH, '/graphql', '/api']) {
      const res = await request(app).options(path);
      expect(res.status).toBe(204);
      expect(res.headers.link).toBe(PREFIXED_HELP);
    }
  });

  it('serves a reference page whose assets and document are under the prefix', async () => {
    const page = await request(app).get(DOCS_PATH);
    const urls = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]);
    expect(urls).toEqual([
      `/payments${DOCS_PATH}/assets/swagger-ui.css`,
      `/payments${DOCS_PATH}/assets/swagger-ui-bundle.js`,
      `/payments${DOCS_PATH}/init.js`,
    ]);
    const init = await request(app).get(`${DOCS_PATH}/init.js`);
    expect(init.text).toContain(`url: "/payments${OPENAPI_PATH}"`);
  });
});
