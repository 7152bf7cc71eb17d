/**
 * http-conventions on a GET among 30 routes: request id, Date, URL limit, the route walk of
 * allowedMethods and the query-header copy, against the same app without them; and
 * answerUrlOverflow's per-connection byte tracking (parsing moved from C++ stream consumption
 * to JavaScript) against a server without it.
 */
import { createServer, type Server } from 'node:http';
import { clientErrorHandler } from '@resourceful/error-envelope';
import {
  allowedMethods,
  answerUrlOverflow,
  limitUrlLength,
  queryHeaders,
  requestId,
  responseDate,
} from '@resourceful/http-conventions';
import { listen } from '@resourceful/test-support';
import express from 'express';
import { type Comparison, compare, type LoadRequest, load, loadUrl } from './harness.js';

function routes(app: express.Express): void {
  const v1 = express.Router();
  for (let index = 0; index < 15; index++) {
    v1.get(`/things-${index}`, (_req, res) => res.json({ items: [] }));
    v1.route(`/things-${index}/:id`)
      .get((req, res) => res.json({ id: req.params.id }))
      .delete((_req, res) => res.status(204).end());
  }
  app.use('/v1', v1);
}

function bare() {
  const app = express();
  routes(app);
  return app;
}

function withConventions() {
  const app = express();
  app.use(requestId());
  app.use(responseDate());
  app.use(limitUrlLength());
  app.use(allowedMethods({ help: 'https://api.example.com/docs' }));
  app.use(queryHeaders());
  routes(app);
  return app;
}

async function loadServer(server: Server, request: LoadRequest) {
  const running = await listen(server);
  try {
    return await loadUrl(running.url, request);
  } finally {
    await running.close();
  }
}

export async function run(): Promise<Comparison[]> {
  const request = { path: '/v1/things-14/T-1?Prefer=return%3Dminimal' };
  return [
    await compare(
      'http-conventions: requestId + responseDate + limitUrlLength + allowedMethods + queryHeaders vs none (30 routes)',
      () => load(bare(), request),
      () => load(withConventions(), request),
      { goal: { atLeast: 0.97, source: '#19' } },
    ),
    await compare(
      'http-conventions: answerUrlOverflow byte tracking vs clientErrorHandler alone',
      () => {
        const server = createServer(bare());
        server.on('clientError', clientErrorHandler());
        return loadServer(server, request);
      },
      () => {
        const server = createServer(bare());
        answerUrlOverflow(server, { otherwise: clientErrorHandler(), maxLength: 64 * 1024 });
        return loadServer(server, request);
      },
    ),
  ];
}
