/**
 * http-conventions on a GET among 30 routes: request id, Date, URL limit, the route walk of
 * allowedMethods and the query-header copy, as `httpConventions()` (one Express layer) and as
 * the five middleware mounted one by one, against the same app without them; and
 * answerUrlOverflow's per-connection byte tracking (parsing moved from C++ stream consumption
 * to JavaScript) against a server without it. Each side's app is built once, as a server holds
 * one app: Express gives every app its own request and response prototypes, and an app built
 * per round would make the property accesses of both sides more polymorphic round by round.
 */
import { createServer, type Server } from 'node:http';
import { clientErrorHandler } from '@resourceful/error-envelope';
import {
  allowedMethods,
  answerUrlOverflow,
  httpConventions,
  limitUrlLength,
  queryHeaders,
  requestId,
  responseDate,
} from '@resourceful/http-conventions';
import { listen } from '@resourceful/test-support';
import express from 'express';
import { type Comparison, compare, type LoadRequest, load, loadUrl } from './harness.js';

/** The 30 routes both sides serve (the ablate-http-conventions diagnostic reuses them). */
export function routes(app: express.Express): void {
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
  app.use(httpConventions({ allowedMethods: { help: 'https://api.example.com/docs' } }));
  routes(app);
  return app;
}

function withEachConvention() {
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
  const bareApp = bare();
  const conventionsApp = withConventions();
  const eachConventionApp = withEachConvention();
  return [
    await compare(
      'http-conventions: httpConventions() (requestId + responseDate + limitUrlLength + allowedMethods + queryHeaders, one layer) vs none (30 routes)',
      () => load(bareApp, request),
      () => load(conventionsApp, request),
      { goal: { atLeast: 0.97, source: '#19' } },
    ),
    await compare(
      'http-conventions: the same five mounted one by one vs none (30 routes)',
      () => load(bareApp, request),
      () => load(eachConventionApp, request),
    ),
    await compare(
      'http-conventions: answerUrlOverflow byte tracking vs clientErrorHandler alone',
      () => {
        const server = createServer(bareApp);
        server.on('clientError', clientErrorHandler());
        return loadServer(server, request);
      },
      () => {
        const server = createServer(bareApp);
        answerUrlOverflow(server, { otherwise: clientErrorHandler(), maxLength: 64 * 1024 });
        return loadServer(server, request);
      },
    ),
  ];
}
