import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorHandler, notFoundHandler } from '@resourceful/error-envelope';
import { describeEachExpress, type ExpressModule } from '@resourceful/test-support';
import cors from 'cors';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  allowedMethods,
  getRequestId,
  type HttpConventionsOptions,
  httpConventions,
  limitUrlLength,
  queryHeaders,
  requestId,
  responseDate,
} from '../src/index.js';

const HELP = 'https://api.example.com/docs';
const MAX_URL = 2048;

/** Deterministic parts: ids from a counter, a fixed clock. */
function partOptions() {
  let next = 0;
  return {
    requestId: { generate: () => `id-${++next}` },
    responseDate: { now: () => new Date('2026-11-24T01:02:03.456Z') },
    limitUrlLength: { maxLength: MAX_URL },
    allowedMethods: { help: HELP },
    queryHeaders: { maxLength: 64 },
  };
}

type Mount = 'separate' | 'combined';

/** The five middleware mounted one by one, or as `httpConventions()`; the same routes. */
function mountConventions(
  app: ReturnType<ExpressModule>,
  mount: Mount,
  except: readonly (keyof HttpConventionsOptions)[] = [],
) {
  const options = partOptions();
  if (mount === 'combined') {
    const combined: HttpConventionsOptions = { ...options };
    for (const part of except) combined[part] = false;
    app.use(httpConventions(combined));
    return;
  }
  const use = (
    part: keyof HttpConventionsOptions,
    make: () => (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void,
  ) => {
    if (!except.includes(part)) app.use(make());
  };
  use('requestId', () => requestId(options.requestId));
  use('responseDate', () => responseDate(options.responseDate));
  use('limitUrlLength', () => limitUrlLength(options.limitUrlLength));
  use('allowedMethods', () => allowedMethods(options.allowedMethods));
  use('queryHeaders', () => queryHeaders(options.queryHeaders));
}

function buildApp(
  express: ExpressModule,
  mount: Mount,
  except: readonly (keyof HttpConventionsOptions)[] = [],
) {
  const app = express();
  const calls: string[] = [];
  app.use(cors({ origin: 'https://shop.example' }));
  mountConventions(app, mount, except);
  const cards = express.Router();
  cards.get('/', (req, res) => {
    res.json({
      id: getRequestId(req) ?? null,
      prefer: req.headers.prefer ?? null,
      query: req.query,
      url: req.originalUrl,
    });
  });
  cards.post('/', (req, res) => {
    calls.push(`${req.method} ${req.originalUrl}`);
    res.status(201).json({ created: true });
  });
  cards
    .route('/:id')
    .get((req, res) => res.json({ id: req.params.id }))
    .delete((_req, res) => res.status(204).end());
  const v1 = express.Router();
  v1.use('/cards', cards);
  app.use('/v1', v1);
  app.all('/anything', (req, res) => res.json({ method: req.method }));
  const admin = express();
  mountConventions(admin, mount);
  admin.get('/users', (_req, res) => res.json([]));
  app.use('/admin', admin);
  app.use(notFoundHandler());
  app.use(errorHandler());
  return { app, calls };
}

interface Exchange {
  method: 'get' | 'head' | 'post' | 'put' | 'delete' | 'options' | 'patch';
  path: string;
  headers?: Record<string, string>;
}

const EXCHANGES: Exchange[] = [
  { method: 'get', path: '/v1/cards' },
  { method: 'get', path: '/v1/cards?page=2&Prefer=return%3Dminimal&if-match=%22e%22' },
  { method: 'get', path: '/v1/cards?Prefer=x', headers: { Prefer: 'return=representation' } },
  { method: 'get', path: '/v1/cards?Prefer=a%0D%0Ab' },
  { method: 'get', path: `/v1/cards?Prefer=${'p'.repeat(65)}` },
  { method: 'get', path: `/v1/cards?filter=${'a'.repeat(MAX_URL)}` },
  { method: 'get', path: '/v1/cards', headers: { 'X-Request-Id': 'from-the-client.1' } },
  { method: 'get', path: '/v1/cards', headers: { 'X-Request-Id': 'not well formed' } },
  { method: 'head', path: '/v1/cards' },
  { method: 'head', path: '/v1/cards/C1' },
  { method: 'get', path: '/v1/cards/C1' },
  { method: 'delete', path: '/v1/cards/C1' },
  { method: 'put', path: '/v1/cards' },
  { method: 'put', path: '/v1/cards/C1?Prefer=return%3Dminimal' },
  { method: 'put', path: '/v1/cards?Prefer=a%0D%0Ab' },
  { method: 'put', path: `/v1/cards?Prefer=a%0D%0Ab&filter=${'a'.repeat(MAX_URL)}` },
  { method: 'post', path: '/v1/cards' },
  { method: 'patch', path: '/v1/cards/C1' },
  { method: 'options', path: '/v1/cards' },
  { method: 'options', path: '/v1/cards/C1' },
  { method: 'options', path: '/v1/unknown' },
  { method: 'get', path: '/v1/unknown' },
  { method: 'delete', path: '/anything' },
  { method: 'options', path: '/anything' },
  {
    method: 'options',
    path: '/v1/cards',
    headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' },
  },
  { method: 'get', path: '/v1/cards', headers: { Origin: 'https://shop.example' } },
  { method: 'options', path: '/admin/users' },
  { method: 'delete', path: '/admin/users' },
  { method: 'get', path: '/admin/users' },
];

async function exchange(
  app: ReturnType<typeof buildApp>['app'],
  { method, path, headers }: Exchange,
) {
  let pending = request(app)[method](path);
  for (const [name, value] of Object.entries(headers ?? {})) pending = pending.set(name, value);
  const res = await pending;
  const answered: Record<string, string> = { ...res.headers };
  // Node's own Date (without responseDate) is the current second: two answers may straddle one.
  if (/ GMT$/.test(answered.date ?? '')) answered.date = '(Node’s Date)';
  return { status: res.status, headers: answered, text: res.text };
}

describeEachExpress('httpConventions', (express) => {
  describe('answers exactly as the five middleware mounted one by one', () => {
    it.each(
      EXCHANGES.map((entry) => [`${entry.method.toUpperCase()} ${entry.path.slice(0, 60)}`, entry]),
    )('%s', async (_name, entry) => {
      const separate = buildApp(express, 'separate');
      const combined = buildApp(express, 'combined');
      const expected = await exchange(separate.app, entry);
      const actual = await exchange(combined.app, entry);
      expect(actual).toEqual(expected);
      expect(combined.calls).toEqual(separate.calls);
    });

    it.each([
      'requestId',
      'responseDate',
      'limitUrlLength',
      'allowedMethods',
      'queryHeaders',
    ] as const)('with %s: false, as without that middleware', async (part) => {
      const separate = buildApp(express, 'separate', [part]);
      const combined = buildApp(express, 'combined', [part]);
      for (const entry of EXCHANGES) {
        expect(await exchange(combined.app, entry)).toEqual(await exchange(separate.app, entry));
      }
    });
  });

  it('sends the request id, the spec’s Date, Allow and the 405 with its defaults', async () => {
    const app = express();
    app.use(httpConventions());
    app.get('/things', (req, res) => res.json({ prefer: req.headers.prefer ?? null }));
    app.use(errorHandler());
    const res = await request(app).get('/things?prefer=return%3Dminimal');
    expect(res.body).toEqual({ prefer: 'return=minimal' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const options = await request(app).options('/things');
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(options.headers.link).toBeUndefined();
    expect((await request(app).delete('/things')).status).toBe(405);
  });
});

describe('httpConventions options', () => {
  it('accepts (), {} and undefined values', () => {
    expect(() => httpConventions()).not.toThrow();
    expect(() => httpConventions({})).not.toThrow();
    expect(() =>
      httpConventions({ requestId: undefined, queryHeaders: undefined, allowedMethods: false }),
    ).not.toThrow();
  });

  it.each([
    [{ requestId: true }, /httpConventions: "requestId" must be an options object or false/],
    [{ queryHeaders: ['Prefer'] }, /"queryHeaders" must be an options object or false/],
    [{ responseDate: null }, /"responseDate" must be an options object or false/],
    [{ requestIds: {} }, /Did you mean "requestId"/],
    [{ allowedMethods: { help: 'not a <url>' } }, /allowedMethods: "help" must be a URL/],
    [{ queryHeaders: { headers: ['Cookie'] } }, /Cookie carries credentials/],
    [{ limitUrlLength: { maxLength: 0 } }, /"maxLength" must be a positive integer/],
    [{ responseDate: { format: 'iso' } }, /"format" must be "rfc3339" or "imf-fixdate"/],
    [{ requestId: { header: 'bad header' } }, /"header" must be a header name/],
  ])('refuses %o', (options, message) => {
    expect(() => httpConventions(options as HttpConventionsOptions)).toThrow(message);
  });
});
