import { conditionalRequests } from '@resourceful/conditional-requests';
import { asyncHandler } from '@resourceful/error-envelope';
import { preferHeader } from '@resourceful/prefer-header';
import { serviceRequestIdempotency } from '@resourceful/service-request-idempotency';
import express, { type Request, type Response } from 'express';
import request from 'supertest';
import { describe, expect, expectTypeOf, it } from 'vitest';

// Middleware typed too narrowly makes Express infer narrower types for every handler after it
// (a `body?: unknown` turns `req.body` into `unknown`). These checks run at compile time.
describe('handlers after Resourceful middleware keep Express types', () => {
  it('keeps req.body, req.params and req.query as Express types them', async () => {
    const app = express();
    app.use(express.json());
    app.post(
      '/v1/things/:id',
      preferHeader(),
      conditionalRequests(),
      serviceRequestIdempotency(),
      (req, res) => {
        expectTypeOf(req.body).toBeAny();
        expectTypeOf(req.params.id).toEqualTypeOf<string>();
        expectTypeOf(req).toMatchTypeOf<Request>();
        res.status(201).json({ ...req.body, id: req.params.id });
      },
    );
    const res = await request(app).post('/v1/things/T-1').send({ name: 'a' });
    expect(res.body).toEqual({ name: 'a', id: 'T-1' });
  });

  it('lets asyncHandler take a handler with annotated Express types', async () => {
    const app = express();
    app.get(
      '/v1/things/:id',
      asyncHandler(async (req: Request, res: Response) => {
        res.json({ id: req.params.id });
      }),
    );
    const res = await request(app).get('/v1/things/T-2');
    expect(res.body).toEqual({ id: 'T-2' });
  });
});
