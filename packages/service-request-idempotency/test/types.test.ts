import { expressVersions } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { serviceRequestIdempotency } from '../src/index.js';

describe('types seen by the handlers after the middleware', () => {
  it('leaves req.body as Express types it, so handlers can spread it', async () => {
    const express = expressVersions[1]!.express;
    const app = express();
    app.use(express.json());
    app.post('/v1/things', serviceRequestIdempotency(), (req, res) => {
      // Compile-time: Express's default body type (`any`), not `unknown`.
      expectTypeOf(req.body).toBeAny();
      res.status(201).json({ ...req.body, id: 'T-1' });
    });
    const res = await request(app).post('/v1/things').send({ name: 'a' });
    expect(res.body).toEqual({ name: 'a', id: 'T-1' });
  });
});
