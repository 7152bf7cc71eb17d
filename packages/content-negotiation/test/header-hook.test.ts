/**
 * The headers the middleware sets when the head is written (`Vary`, `Content-Language`, a HEAD's
 * coding) come, for Express responses, from the `writeHead` that `@resourceful/application-hooks`
 * defines on the app's outermost `app.response`, and from on-headers for any response that
 * carries a `writeHead` of its own. Both must answer the same bytes, however the head is
 * written, wherever the route sits (a router, an app mounted with `app.use`, an app used as a
 * router's middleware), for every format and coding.
 */
import { ServerResponse } from 'node:http';
import {
  describeEachExpress,
  exactRequest,
  listen,
  type RunningServer,
} from '@resourceful/test-support';
import type { Express, RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from './app.js';

interface Wire {
  readonly status: number;
  readonly statusMessage: string;
  /** Every header line as sent, in order, but `Date` (which differs between any two answers). */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** One request with exactly `headers`, and the answer's header lines in the order sent. */
async function wire(
  port: number,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>>,
): Promise<Wire> {
  const answer = await exactRequest(port, method, path, headers);
  return {
    status: answer.status,
    statusMessage: answer.statusMessage,
    headers: answer.headerLines.filter((line) => !/^date:/i.test(line)),
    body: answer.body,
  };
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Routes writing their head in every way Node and Express allow. */
function writeHeadRoutes(routes: Express): void {
  routes.get('/png', (_req, res) => {
    res.type('png').send(PNG);
  });
  routes.get('/vary-set', (_req, res) => {
    res.set('Vary', 'Prefer').json({ ok: true });
  });
  routes.get('/vary-appended', (_req, res) => {
    res.vary('Origin').json({ ok: true });
  });
  routes.get('/head-object', (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png', 'X-Extra': 'object' });
    res.end(PNG);
  });
  routes.get('/head-object-json', (_req, res) => {
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end('{"written":"by hand"}');
  });
  routes.get('/head-flat-array', (_req, res) => {
    res.writeHead(200, ['Content-Type', 'text/plain', 'X-Extra', 'one', 'X-Extra', 'two']);
    res.end('flat');
  });
  routes.get('/head-nested-array', (_req, res) => {
    res.writeHead(200, [
      ['Content-Type', 'image/png'],
      ['X-Extra', 'nested'],
    ]);
    res.end(PNG);
  });
  routes.get('/head-reason', (_req, res) => {
    res.writeHead(202, 'Taken In', { 'Content-Type': 'text/plain' });
    res.end('reason');
  });
  routes.get('/head-status-only', (_req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.writeHead(203);
    res.end('status only');
  });
  routes.get('/streamed', (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.write('{"part":');
    res.end('"two"}');
  });
}

/** A mounted app and an app used as a router's middleware, each answering `/card`. */
function mountedApps(express: Parameters<typeof buildApp>[0], app: Express): void {
  const mounted = express();
  mounted.get('/card', (_req, res) => {
    res.json({ where: 'app.use' });
  });
  app.use('/mounted', mounted);
  const used = express();
  used.get('/used/card', (_req, res) => {
    res.json({ where: 'router.use' });
  });
  const router = express.Router();
  router.use(used as unknown as RequestHandler);
  app.use(router);
}

/**
 * A middleware giving every response a `writeHead` of its own that calls Node's directly, as
 * a middleware written for speed may: the negotiation must then hook that response through
 * on-headers, the way it always did.
 */
const ownWriteHead: RequestHandler = function ownWriteHead(_req, res, next) {
  const nodeWriteHead = ServerResponse.prototype.writeHead as (
    ...args: unknown[]
  ) => ServerResponse;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    return nodeWriteHead.apply(this, args);
  } as typeof res.writeHead;
  next();
};

const OPTIONS = { jsonp: true, languages: ['en', 'fr'] };
const PATHS = [
  '/card',
  '/items?count=40',
  '/greeting',
  '/plain',
  '/text',
  '/empty',
  '/missing',
  '/no-transform',
  '/png',
  '/vary-set',
  '/vary-appended',
  '/head-object',
  '/head-object-json',
  '/head-flat-array',
  '/head-nested-array',
  '/head-reason',
  '/head-status-only',
  '/streamed',
  '/mounted/card',
  '/used/card',
  '/nowhere',
];
const REQUESTS: Record<string, string>[] = [
  {},
  { accept: 'application/json' },
  { accept: 'application/xml', 'accept-language': 'fr' },
  { accept: 'image/png' },
  { 'accept-encoding': 'gzip' },
  { 'accept-encoding': 'br;q=0.5, deflate', 'accept-charset': 'latin1' },
  { accept: 'text/javascript', 'accept-language': 'fr-CA, en;q=0.5' },
];

describeEachExpress('the header hook', (express) => {
  let direct: RunningServer;
  let wrapped: RunningServer;
  let plain: RunningServer;

  function app(setup: (app: Express) => void): Express {
    const built = buildApp(express, OPTIONS, setup);
    writeHeadRoutes(built);
    mountedApps(express, built);
    return built;
  }

  beforeAll(async () => {
    direct = await listen(app(() => {}));
    wrapped = await listen(app((built) => built.use(ownWriteHead)));
    const bare = express();
    bare.get('/card', (_req, res) => {
      res.json({ negotiated: false });
    });
    plain = await listen(bare);
  });

  afterAll(async () => {
    await direct.close();
    await wrapped.close();
    await plain.close();
  });

  for (const path of PATHS) {
    describe(`for ${path}`, () => {
      it('answers the same bytes through either hook, for GET and HEAD', async () => {
        for (const headers of REQUESTS) {
          for (const method of ['GET', 'HEAD']) {
            const target = headers.accept === 'text/javascript' ? `${path}?callback=cb` : path;
            const fast = await wire(direct.port, method, target, headers);
            const reference = await wire(wrapped.port, method, target, headers);
            const what = `${method} ${target} ${JSON.stringify(headers)}`;
            expect(fast.status, what).toBe(reference.status);
            expect(fast.statusMessage, what).toBe(reference.statusMessage);
            expect(fast.headers, what).toEqual(reference.headers);
            expect(fast.body.equals(reference.body), what).toBe(true);
          }
        }
      });
    });
  }

  it('negotiates the answers of apps mounted below it, however they are mounted', async () => {
    for (const path of ['/mounted/card', '/used/card']) {
      const answer = await wire(direct.port, 'GET', path, {});
      expect(answer.headers, path).toContain('Vary: Accept, Accept-Charset, Accept-Encoding');
    }
  });

  it('adds no writeHead of its own to an Express response', async () => {
    let own: boolean | undefined;
    const checked = buildApp(express);
    checked.get('/own', (_req, res) => {
      own = Object.hasOwn(res, 'writeHead');
      res.json({});
    });
    const server = await listen(checked);
    try {
      const answer = await wire(server.port, 'GET', '/own', {});
      expect(answer.status).toBe(200);
      expect(own).toBe(false);
      expect(Object.hasOwn(checked.response, 'writeHead')).toBe(true);
      expect(Object.hasOwn(express.response, 'writeHead')).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('sets its headers after compression has set its own (its hook runs after compression’s)', async () => {
    const answer = await wire(direct.port, 'GET', '/card', { 'accept-encoding': 'gzip' });
    expect(answer.headers).toContain('Content-Encoding: gzip');
    // compression's hook wrote `Vary: Accept-Encoding` first; this middleware's merged its own.
    expect(answer.headers).toContain('Vary: Accept-Encoding, Accept, Accept-Charset');
  });

  it('leaves the answers of apps without it as they were', async () => {
    await wire(direct.port, 'GET', '/card', {});
    const answer = await wire(plain.port, 'GET', '/card', { accept: 'application/xml' });
    expect(answer.status).toBe(200);
    expect(answer.headers.some((line) => line.toLowerCase().startsWith('vary:'))).toBe(false);
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ negotiated: false });
  });

  it('still sets its headers when another copy of the package hooks the same response', async () => {
    vi.resetModules();
    const other = await import('../src/index.js');
    const twice = express();
    twice.use(other.contentNegotiation());
    twice.get('/x', (_req, res) => {
      res.json({ ok: true });
    });
    const server = await listen(twice);
    try {
      await wire(direct.port, 'GET', '/card', {});
      const answer = await wire(server.port, 'HEAD', '/x', { 'accept-encoding': 'gzip' });
      const vary = answer.headers.find((line) => line.startsWith('Vary: '));
      expect(vary?.slice(6).split(', ').sort()).toEqual([
        'Accept',
        'Accept-Charset',
        'Accept-Encoding',
      ]);
      expect(answer.headers).toContain('Content-Encoding: gzip');
    } finally {
      await server.close();
    }
  });
});
