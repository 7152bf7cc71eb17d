import { ApiError, type ErrorHandlerOptions, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, type ExpressModule } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type ServiceRequestIdempotencyOptions, serviceRequestIdempotency } from '../src/index.js';

/** A POST that is refused with a 4xx the first time, so the repeat replays an error. */
function refusingApp(
  express: ExpressModule,
  errors: ErrorHandlerOptions = {},
  idempotency: ServiceRequestIdempotencyOptions = {},
) {
  const app = express();
  app.use(express.json());
  app.use(serviceRequestIdempotency(idempotency));
  app.post('/v1/things', (_req, _res, next) => {
    next(ApiError.unprocessable('The thing cannot be made.'));
  });
  app.use(errorHandler({ onError: () => undefined, ...errors }));
  return app;
}

async function firstAndRepeat(app: ReturnType<typeof refusingApp>) {
  const send = () =>
    request(app).post('/v1/things').set('Service-Request-Id', 'err-1').send({ name: 'a' });
  return [await send(), await send()] as const;
}

describeEachExpress('replaying an error answer', (express) => {
  describe('with the default replay allow-list', () => {
    it('carries the Error-Code header the first answer had', async () => {
      const [first, repeat] = await firstAndRepeat(refusingApp(express));
      expect(first.status).toBe(422);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(repeat.status).toBe(422);
      expect(repeat.headers['error-code']).toBe('UNPROCESSABLE_ENTITY');
      expect(repeat.body).toEqual(first.body);
    });

    it("follows the app's configured code header", async () => {
      const [first, repeat] = await firstAndRepeat(
        refusingApp(express, { codeHeader: 'X-Error-Code' }),
      );
      expect(first.headers['x-error-code']).toBe('UNPROCESSABLE_ENTITY');
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(repeat.headers['x-error-code']).toBe('UNPROCESSABLE_ENTITY');
    });
  });

  it('keeps to an allow-list the app gives, which then names the code header itself', async () => {
    const [, repeat] = await firstAndRepeat(
      refusingApp(express, {}, { replayHeaders: ['Content-Type'] }),
    );
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.headers['error-code']).toBeUndefined();
  });
});
