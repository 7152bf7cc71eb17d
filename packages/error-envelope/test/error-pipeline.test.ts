import type { ServerResponse } from 'node:http';
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  type ErrorHandlerOptions,
  type ErrorReport,
  errorHandler,
  errorSettingsFor,
  REQUEST_ID_KEY,
  sendError,
} from '../src/index.js';

/** What another package does when it must answer outside the error chain (unchanged call). */
function answersOutsideTheChain(_req: Request, res: Response): void {
  sendError(res as ServerResponse, ApiError.preconditionFailed(undefined, { target: 'If-Match' }));
}

describeEachExpress('one error pipeline for every writer of an envelope', (express) => {
  function appWith(options: ErrorHandlerOptions & { requestId?: string } = {}) {
    const { requestId, ...handlerOptions } = options;
    const reports: ErrorReport[] = [];
    const app = express();
    if (requestId !== undefined) {
      app.use((req: Request, _res: Response, next: NextFunction) => {
        (req as Request & { [REQUEST_ID_KEY]?: string })[REQUEST_ID_KEY] = requestId;
        next();
      });
    }
    app.get('/direct', answersOutsideTheChain);
    app.get('/throttled', (_req, _res, next) => next(ApiError.tooManyRequests()));
    app.get('/unavailable', (_req, _res, next) =>
      next(ApiError.serviceUnavailable('Store down.', { retryAfter: 30 })),
    );
    app.get('/http-503', (_req, _res, next) =>
      next(Object.assign(new Error('down'), { status: 503 })),
    );
    app.get('/coded', (_req, _res, next) =>
      next(ApiError.conflict('x', { innererror: { code: 'RESOURCE_MISSING' } })),
    );
    app.get('/settings', (req: Request, res: Response) => {
      res.json({ codeHeader: errorSettingsFor(req).codeHeader });
    });
    app.use(errorHandler({ onError: (report) => reports.push(report), ...handlerOptions }));
    return { app, reports };
  }

  describe('sendError called by another package', () => {
    it("writes the app's code header and calls its onError once", async () => {
      const { app, reports } = appWith({ codeHeader: 'X-Error-Code' });
      const res = await request(app).get('/direct');
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
      expect(res.headers['x-error-code']).toBe('PRECONDITION_FAILED');
      expect(res.headers['error-code']).toBeUndefined();
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ status: 412, kind: 'client-error', headersSent: false });
    });

    it('sends no code header when the app says codeHeader: false', async () => {
      const { app } = appWith({ codeHeader: false });
      const res = await request(app).get('/direct');
      expect(res.headers['error-code']).toBeUndefined();
    });

    it("finds the parent app's settings from a mounted sub-app", async () => {
      const reports: ErrorReport[] = [];
      const sub = express();
      sub.get('/direct', answersOutsideTheChain);
      const parent = express();
      parent.use('/sub', sub);
      parent.use(errorHandler({ codeHeader: 'X-Error-Code', onError: (r) => reports.push(r) }));
      const res = await request(parent).get('/sub/direct');
      expect(res.headers['x-error-code']).toBe('PRECONDITION_FAILED');
      expect(reports).toHaveLength(1);
    });

    it('finds the settings of an errorHandler mounted inside a router', async () => {
      const reports: ErrorReport[] = [];
      const app = express();
      const v1 = express.Router();
      const inner = express.Router();
      inner.get('/direct', answersOutsideTheChain);
      v1.use('/inner', inner);
      v1.get('/direct', answersOutsideTheChain);
      v1.use(errorHandler({ codeHeader: 'X-Code', onError: (report) => reports.push(report) }));
      app.use('/v1', v1);
      for (const path of ['/v1/direct', '/v1/inner/direct']) {
        const res = await request(app).get(path);
        expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED' });
        expect(res.headers['x-code']).toBe('PRECONDITION_FAILED');
        expect(res.headers['error-code']).toBeUndefined();
      }
      expect(reports).toHaveLength(2);
    });

    it("prefers the app's own errorHandler to one inside a router", async () => {
      const app = express();
      const v1 = express.Router();
      v1.use(errorHandler({ codeHeader: 'X-Router-Code', onError: () => undefined }));
      app.use('/v1', v1);
      app.get('/direct', answersOutsideTheChain);
      app.use(errorHandler({ codeHeader: 'X-App-Code', onError: () => undefined }));
      const res = await request(app).get('/direct');
      expect(res.headers['x-app-code']).toBe('PRECONDITION_FAILED');
      expect(res.headers['x-router-code']).toBeUndefined();
    });

    it('uses the defaults in an app without an errorHandler', async () => {
      const app = express();
      app.get('/direct', answersOutsideTheChain);
      const res = await request(app).get('/direct');
      expect(res.headers['error-code']).toBe('PRECONDITION_FAILED');
    });

    it('lets options given to the call override the app', async () => {
      const { app } = appWith({ codeHeader: 'X-Error-Code' });
      app.get('/override', (_req, res) => {
        sendError(res, ApiError.conflict('x'), { codeHeader: 'X-Other' });
      });
      // Mounted after the error handler: the app's settings are still found.
      const res = await request(app).get('/override');
      expect(res.headers['x-other']).toBe('CONFLICT');
      expect(res.headers['x-error-code']).toBeUndefined();
    });

    it('tells other packages the code header through errorSettingsFor', async () => {
      const { app } = appWith({ codeHeader: 'X-Error-Code' });
      const res = await request(app).get('/settings');
      expect(res.body).toEqual({ codeHeader: 'X-Error-Code' });
    });
  });

  describe('Retry-After on 429 and 503', () => {
    it('sends the default on a 429 whose error sets none', async () => {
      const { app } = appWith();
      const res = await request(app).get('/throttled');
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('5');
    });

    it('sends the configured default on a 503 from an http-errors style error', async () => {
      const { app } = appWith({ retryAfter: 120 });
      const res = await request(app).get('/http-503');
      expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('120');
    });

    it("keeps the error's own Retry-After", async () => {
      const { app } = appWith({ retryAfter: 120 });
      const res = await request(app).get('/unavailable');
      expect(res.headers['retry-after']).toBe('30');
    });

    it('refuses a retryAfter that is not a whole number of seconds', () => {
      expect(() => errorHandler({ retryAfter: -1 })).toThrow(/retryAfter/);
      expect(() => errorHandler({ retryAfter: 1.5 })).toThrow(/retryAfter/);
    });
  });

  describe('the request id', () => {
    it('is in every envelope as innererror.request_id, and in the report', async () => {
      const { app, reports } = appWith({ requestId: 'req-7f3a' });
      const res = await request(app).get('/direct');
      expect(res.body.error.innererror).toEqual({ request_id: 'req-7f3a' });
      const throttled = await request(app).get('/throttled');
      expect(throttled.body.error.innererror).toEqual({ request_id: 'req-7f3a' });
      expect(reports.map((report) => report.requestId)).toEqual(['req-7f3a', 'req-7f3a']);
    });

    it("sits beside the error's own innererror code", async () => {
      const { app } = appWith({ requestId: 'req-1' });
      const res = await request(app).get('/coded');
      expect(res.body.error.innererror).toEqual({ code: 'RESOURCE_MISSING', request_id: 'req-1' });
    });

    it('is left out when none was set', async () => {
      const { app, reports } = appWith();
      const res = await request(app).get('/direct');
      expect(res.body.error.innererror).toBeUndefined();
      expect(reports[0]?.requestId).toBeUndefined();
    });
  });
});
