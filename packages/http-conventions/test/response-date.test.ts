import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  formatImfFixdate,
  formatRfc3339,
  type ResponseDateOptions,
  responseDate,
} from '../src/index.js';

describeEachExpress('responseDate', (express) => {
  function app(options: ResponseDateOptions = {}) {
    const app = express();
    app.use(responseDate(options));
    app.get('/late', (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/empty', (_req, res) => {
      res.status(204).end();
    });
    return app;
  }

  it('sends an RFC 3339 Date by default', async () => {
    const res = await request(app()).get('/late');
    expect(res.headers.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('stamps the time the answer was written, not when the request arrived', async () => {
    let clock = new Date('2026-01-01T00:00:00.000Z');
    const server = express();
    server.use(responseDate({ now: () => clock }));
    server.get('/slow', (_req, res) => {
      clock = new Date('2026-01-01T00:00:05.000Z');
      res.json({ ok: true });
    });
    const res = await request(server).get('/slow');
    expect(res.headers.date).toBe('2026-01-01T00:00:05.000Z');
  });

  it('stamps each answer with its own time, one millisecond apart included', async () => {
    const times = [
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.001Z',
      '2026-01-01T00:00:00.001Z',
    ];
    let call = 0;
    for (const format of ['rfc3339', 'imf-fixdate'] as const) {
      call = 0;
      const server = app({ format, now: () => new Date(times[call++]!) });
      const dates: string[] = [];
      for (let index = 0; index < times.length; index++) {
        dates.push((await request(server).get('/empty')).headers.date!);
      }
      const formatted = times.map((time) =>
        format === 'rfc3339' ? time : new Date(time).toUTCString(),
      );
      expect(dates).toEqual(formatted);
    }
    const later = await request(app({ now: () => new Date('2027-05-06T07:08:09.010Z') })).get(
      '/empty',
    );
    expect(later.headers.date).toBe('2027-05-06T07:08:09.010Z');
  });

  it('stamps Date over one passed to writeHead, and keeps the other headers passed', async () => {
    const server = express();
    server.use(responseDate({ now: () => new Date('2026-01-01T00:00:00.000Z') }));
    server.get('/object', (_req, res) => {
      res.writeHead(202, 'Taken', { Date: 'yesterday', 'X-Kept': '1' }).end();
    });
    server.get('/object-only', (_req, res) => {
      res.writeHead(202, { date: 'yesterday', 'X-Kept': '2' }).end();
    });
    server.get('/array', (_req, res) => {
      res.writeHead(202, ['Date', 'yesterday', 'X-Kept', '3']).end();
    });
    for (const [path, kept] of [
      ['/object', '1'],
      ['/object-only', '2'],
      ['/array', '3'],
    ] as const) {
      const res = await request(server).get(path);
      expect(res.status).toBe(202);
      expect(res.headers.date).toBe('2026-01-01T00:00:00.000Z');
      expect(res.headers['x-kept']).toBe(kept);
    }
  });

  it('stamps Date under another writeHead wrapper, whichever is installed first', async () => {
    const server = express();
    const wrap = (_req: unknown, res: import('node:http').ServerResponse, next: () => void) => {
      const inner = res.writeHead;
      res.writeHead = function wrapped(this: typeof res, ...args: unknown[]) {
        this.setHeader('X-Wrapped', 'yes');
        return (inner as (...all: unknown[]) => typeof res).apply(this, args);
      } as typeof res.writeHead;
      next();
    };
    server.use('/before', wrap, responseDate({ now: () => new Date('2026-01-01T00:00:00.000Z') }));
    server.use('/after', responseDate({ now: () => new Date('2026-01-01T00:00:00.000Z') }), wrap);
    server.get(['/before', '/after'], (_req, res) => {
      res.json({ ok: true });
    });
    for (const path of ['/before', '/after']) {
      const res = await request(server).get(path);
      expect(res.headers.date).toBe('2026-01-01T00:00:00.000Z');
      expect(res.headers['x-wrapped']).toBe('yes');
    }
  });

  describe('across apps', () => {
    const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    const IMF = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

    it('stamps the answers of a sub-app mounted below it', async () => {
      const outer = express();
      outer.use(responseDate());
      const inner = express();
      inner.get('/x', (_req, res) => res.json({}));
      outer.use('/v1', inner);
      expect((await request(outer).get('/v1/x')).headers.date).toMatch(RFC3339);
    });

    it('stamps an answer written after the sub-app that hooked it passed it on', async () => {
      const outer = express();
      const inner = express();
      inner.use(responseDate());
      outer.use('/v1', inner);
      outer.get('/v1/x', (_req, res) => res.json({}));
      outer.get('/v2/x', (_req, res) => res.json({}));
      expect((await request(outer).get('/v1/x')).headers.date).toMatch(RFC3339);
      // A response the middleware did not see keeps Node's own Date.
      expect((await request(outer).get('/v2/x')).headers.date).toMatch(IMF);
    });

    it('lets the first of two responseDate() decide the form, as before', async () => {
      const outer = express();
      outer.use(responseDate({ format: 'imf-fixdate' }));
      outer.use(responseDate());
      outer.get('/x', (_req, res) => res.json({}));
      expect((await request(outer).get('/x')).headers.date).toMatch(IMF);
    });
  });

  it('sends the IMF-fixdate form as an option', async () => {
    const res = await request(
      app({ format: 'imf-fixdate', now: () => new Date('1994-11-06T08:49:37Z') }),
    ).get('/empty');
    expect(res.status).toBe(204);
    expect(res.headers.date).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });

  it('keeps Node’s Date when the clock returns an invalid date', async () => {
    const res = await request(app({ now: () => new Date(Number.NaN) })).get('/empty');
    expect(new Date(res.headers.date!).getTime()).not.toBeNaN();
    expect(res.headers.date).toMatch(/GMT$/);
  });
});

describe('date formats', () => {
  it('formats both forms', () => {
    const date = new Date('2026-11-23T19:03:11.123Z');
    expect(formatRfc3339(date)).toBe('2026-11-23T19:03:11.123Z');
    expect(formatImfFixdate(date)).toBe('Mon, 23 Nov 2026 19:03:11 GMT');
  });

  it.each([
    [{ format: 'iso' }, /"format" must be "rfc3339" or "imf-fixdate"/],
    [{ now: 5 }, /"now" must be a function/],
    [{ now: 'now' }, /"now" must be a function/],
    [{ fromat: 'rfc3339' }, /Did you mean "format"/],
    [{ format: null }, /"format" must be "rfc3339" or "imf-fixdate", got null/],
    [{ now: null }, /"now" must be a function, got null/],
  ])('refuses %o', (options, message) => {
    expect(() => responseDate(options as ResponseDateOptions)).toThrow(message);
  });
});
