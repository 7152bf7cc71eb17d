/**
 * Each middleware of the stack alone against the same app without it (issue #19: each ≥ 0.97),
 * on one route: `GET /v1/vault/credit-cards` answering a 20-card page with `res.json`, mounted
 * on an Express 5 router under `/v1`. Pagination and http-conventions have their own files
 * (collection-pagination.bench.ts, http-conventions.bench.ts).
 * - versioned router: `versionedRouter({ versions: { v1 } })` vs `app.use('/v1', v1)`;
 * - prefer: `preferHeader()` on the router, the request sending `Prefer: return=representation`;
 * - conditional requests: `conditionalRequests()` (strong SHA-256 ETag of the value) vs
 *   Express's default weak ETag (SHA-1 of the bytes), which is also #19's "strong ETags cost
 *   ≤ 3 %" on this body;
 * - content negotiation: `contentNegotiation()` vs none, a JSON answer, no coding asked for.
 */
import { conditionalRequests } from '@resourceful/conditional-requests';
import { contentNegotiation } from '@resourceful/content-negotiation';
import { preferHeader } from '@resourceful/prefer-header';
import { listen, type RunningServer } from '@resourceful/test-support';
import { versionedRouter } from '@resourceful/versioned-router';
import express, { type Express, type RequestHandler } from 'express';
import { type Comparison, compare, type LoadRequest, loadUrl } from './harness.js';

/** The 20-card page every comparison here answers (about 9 KB); the ablate-* diagnostics reuse it. */
export const cardPage = {
  items: Array.from({ length: 20 }, (_, index) => ({
    id: `CARD-${index}`,
    state: 'ok',
    payer_id: `user${index}`,
    type: 'visa',
    number: 'xxxxxxxxxxxx1111',
    expire_month: String((index % 12) + 1),
    expire_year: '2031',
    first_name: 'Ada',
    last_name: 'Lovelace',
    valid_until: '2031-07-31T23:59:59Z',
    create_time: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    update_time: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    links: [
      {
        href: `https://api.example.com/v1/vault/credit-cards/CARD-${index}`,
        rel: 'self',
        method: 'GET',
      },
    ],
  })),
  links: [
    {
      href: 'https://api.example.com/v1/vault/credit-cards?page=1&page_size=20',
      rel: 'self',
      method: 'GET',
    },
  ],
};

export interface Variant {
  /** Middleware before the version router (app level). */
  app?: RequestHandler;
  /** Middleware on the version router. */
  router?: RequestHandler;
  versioned?: boolean;
}

export function build({ app: appLevel, router: routerLevel, versioned }: Variant): Express {
  const app = express();
  app.disable('x-powered-by');
  if (appLevel) app.use(appLevel);
  const v1 = express.Router();
  if (routerLevel) v1.use(routerLevel);
  v1.get('/vault/credit-cards', (_req, res) => {
    res.json(cardPage);
  });
  if (versioned) app.use(versionedRouter({ versions: { v1 } }));
  else app.use('/v1', v1);
  return app;
}

const PATH = '/v1/vault/credit-cards';

export async function run(): Promise<Comparison[]> {
  const cases: [string, Variant, LoadRequest][] = [
    [
      'versioned-router: versionedRouter() vs app.use("/v1", router)',
      { versioned: true },
      { path: PATH },
    ],
    [
      'prefer-header: preferHeader() vs none (Prefer: return=representation)',
      { router: preferHeader() as RequestHandler },
      { path: PATH, headers: { prefer: 'return=representation' } },
    ],
    [
      "conditional-requests: conditionalRequests() strong ETag vs Express's weak ETag (20-card page)",
      { app: conditionalRequests() as RequestHandler },
      { path: PATH },
    ],
    [
      'content-negotiation: contentNegotiation() vs none (JSON, 20-card page)',
      { app: contentNegotiation() as RequestHandler },
      { path: PATH, headers: { accept: 'application/json' } },
    ],
  ];
  const bare = await listen(build({}));
  const results: Comparison[] = [];
  try {
    for (const [name, variant, request] of cases) {
      const candidate: RunningServer = await listen(build(variant));
      try {
        results.push(
          await compare(
            name,
            () => loadUrl(bare.url, request),
            () => loadUrl(candidate.url, request),
            { goal: { atLeast: 0.97, source: '#19' } },
          ),
        );
      } finally {
        await candidate.close();
      }
    }
  } finally {
    await bare.close();
  }
  return results;
}
