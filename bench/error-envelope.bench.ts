/**
 * The error handler on a hot 404 path against Express's own final handler.
 */
import { errorHandler, notFoundHandler } from '@resourceful/error-envelope';
import express from 'express';
import { type Comparison, compare, load } from './harness.js';

function bare() {
  const app = express();
  app.use((_req, res) => {
    res
      .status(404)
      .json({ error: { code: 'NOT_FOUND', message: 'No resource matches this path.' } });
  });
  return app;
}

function withEnvelope() {
  const app = express();
  app.use(notFoundHandler());
  app.use(errorHandler());
  return app;
}

export async function run(): Promise<Comparison[]> {
  const request = { path: '/v1/nowhere' };
  return [
    await compare(
      'error-envelope: 404 via notFoundHandler + errorHandler vs hand-written 404',
      () => load(bare(), request),
      () => load(withEnvelope(), request),
    ),
  ];
}
