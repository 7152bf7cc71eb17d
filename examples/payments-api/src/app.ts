/**
 * @module The payments API as an Express app, built by a function so tests can run it under
 * Express 4 and 5 and with their own clock.
 */

import type { ResourceStorage } from '@resourceful/api-description';
import { conditionalRequests } from '@resourceful/conditional-requests';
import {
  assertContentNegotiationOrder,
  contentNegotiation,
} from '@resourceful/content-negotiation';
import {
  ApiError,
  type ErrorHandlerOptions,
  errorHandler,
  notFoundHandler,
} from '@resourceful/error-envelope';
import {
  allowedMethods,
  queryHeaders,
  requestId,
  responseDate,
} from '@resourceful/http-conventions';
import { type ClusterCredentials, serviceProxy } from '@resourceful/k8s-service-proxy';
import { preferHeader } from '@resourceful/prefer-header';
import { mountOperations } from '@resourceful/resource-operations';
import {
  type IdempotencyStore,
  memoryStore,
  serviceRequestIdempotency,
} from '@resourceful/service-request-idempotency';
import { versionedRouter } from '@resourceful/versioned-router';
import express5, { type Express, type NextFunction, type Request, type Response } from 'express';
import { ANSWER_COMPRESSION, compressAnswers } from './answer-compression.js';
import { type AppDatabase, databaseFromEnvironment } from './database/app-database.js';
import { basePath, DOCS_PATH, mountApiDocs, OPENAPI_PATH } from './description/docs.js';
import { checkFilterValues } from './description/filter-values.js';
import { GRAPHQL_PATH, graphqlRoutes, onlyGraphqlPaths } from './description/graphql.js';
import { describePaymentsApi } from './description/index.js';
import { keysetListDefaults, listDefaults } from './lists.js';
import { oneRequestAtATimePerConnection } from './pipelining.js';
import { refuseForbiddenQueryNames } from './query-keys.js';
import { README_PATH, sendReadme } from './readme.js';
import { oneContentType, requireJson } from './require-json.js';
import { mountBillingAgreements } from './resources/billing-agreements.js';
import { mountCreditCards } from './resources/credit-cards.js';
import { mountCustomers } from './resources/customers.js';
import { mountRefunds } from './resources/refunds.js';
import { riskOperations } from './resources/risk.js';
import { EVENT_TYPE_LANGUAGES, mountWebhooks } from './resources/webhooks.js';
import { seed } from './seed.js';
import { MAX_BODY_BYTES } from './server-limits.js';
import { createStores, prepareStores } from './stores.js';
import { limitUrlLength } from './url-length.js';

export type ExpressModule = typeof express5;

export interface AppOptions {
  /** The Express module to build with (tests pass Express 4 and 5). @default express 5 */
  express?: ExpressModule;
  /** @default () => new Date() */
  now?: () => Date;
  /** Absolute base for links, e.g. `https://api.example.com`; else taken from the request. */
  publicBaseUrl?: string;
  /** Express's `trust proxy` setting. @default false */
  trustProxy?: boolean | number | string;
  /** Start with the seeded records. @default true */
  seed?: boolean;
  onError?: ErrorHandlerOptions['onError'];
  /** Where `Service-Request-Id` responses are kept. @default an in-memory store */
  idempotencyStore?: IdempotencyStore;
  /**
   * Where `idempotencyStore` keeps them, for the API description: `external` (Redis: POSTs
   * document 503 while it is unreachable) or `in-process` (a memory store, which has nothing to
   * reach). @default 'in-process' without `idempotencyStore`, else 'external'
   */
  idempotencyStorage?: ResourceStorage;
  /**
   * `Link: <…>; rel="help"` of every OPTIONS answer, one link per URL.
   * @default [DOCS_PATH, OPENAPI_PATH] (the API reference page and the OpenAPI document), after
   *   the path of `publicBaseUrl` when it has one
   */
  helpUrl?: string | readonly string[];
  /** Relay `RELAY_PATH` to a cluster service through the control plane's service proxy. */
  serviceRelay?: ServiceRelayOptions;
  /**
   * PostgreSQL for the cards, customers and webhooks (migrated and seeded at start), or `false`
   * for memory. @default databaseFromEnvironment(): `DATABASE_URL` when set, else memory
   */
  database?: AppDatabase | false;
  /**
   * Secrets (32+ characters each) signing continuation tokens of the card, customer and webhook
   * lists; the first signs, any verifies (rotation: put the new one first). Without them, lists
   * page by offset only. @default none
   */
  pageTokenSecrets?: readonly string[];
}

const readiness = new WeakMap<Express, Promise<void>>();

/**
 * Resolves once the app's stores are migrated and seeded (at once in memory); rejects when the
 * database cannot be prepared. Requests that arrive before wait for it.
 */
export function appReady(app: Express): Promise<void> {
  return readiness.get(app) ?? Promise.resolve();
}

export interface ServiceRelayOptions {
  credentials: ClusterCredentials;
  namespace: string;
  service: string;
  /** Port name or number of the service; left out of the proxy path when not given. */
  port?: string;
}

/** Where the example relays to the configured cluster service, when credentials were found. */
export const RELAY_PATH = '/v1/cluster/relay';

export function createApp(options: AppOptions = {}): Express {
  const express = options.express ?? express5;
  const now = options.now ?? (() => new Date());
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? false);
  if (options.publicBaseUrl !== undefined) {
    app.set('public base url', options.publicBaseUrl.replace(/\/+$/, ''));
  }

  const database =
    options.database === false ? undefined : (options.database ?? databaseFromEnvironment());
  const stores = createStores(database);
  const shouldSeed = options.seed ?? true;
  const ready = prepareStores(database).then(() =>
    shouldSeed ? stores.seedOnce(() => seed(stores, now())) : undefined,
  );
  // Not a crash when nobody waits: each request (and appReady) sees the failure.
  let prepared: 'pending' | 'ready' | 'failed' = 'pending';
  ready.then(
    () => {
      prepared = 'ready';
    },
    () => {
      prepared = 'failed';
    },
  );
  readiness.set(app, ready);
  app.use(oneRequestAtATimePerConnection);
  app.use(function awaitStores(_req: Request, _res: Response, next: NextFunction) {
    // Once the stores are ready (every request but the first few), no promise per request.
    if (prepared === 'ready') {
      next();
      return;
    }
    const unavailable = () =>
      next(ApiError.serviceUnavailable('The database is not ready.', { retryAfter: 5 }));
    if (prepared === 'failed') {
      unavailable();
      return;
    }
    ready.then(() => next(), unavailable);
  });

  // http-conventions (issue 13): a request id and an RFC 3339 Date on every answer, 414 for
  // long URLs, OPTIONS and 405 from the routes below (before them, so no handler runs).
  app.use(requestId());
  app.use(responseDate({ now }));
  app.use(limitUrlLength);
  // `rel="help"` points at the API reference page and the OpenAPI document it renders, both
  // generated from the API description (under the public base URL's path, as every link).
  const prefix = basePath(app.get('public base url') as string | undefined);
  const help = options.helpUrl ?? [`${prefix}${DOCS_PATH}`, `${prefix}${OPENAPI_PATH}`];
  app.use(allowedMethods({ help }));
  // Two Content-Type lines on a request with a body: a 400 before any path reads the body.
  app.use(oneContentType);
  // `__proto__`, `constructor`, `prototype` in a query parameter name: a 400, as in a body.
  app.use(refuseForbiddenQueryNames);
  // Mounted before content negotiation (its own media type): compressed as it would compress.
  app.get(README_PATH, compressAnswers(), sendReadme);

  if (options.serviceRelay !== undefined) {
    // Before the body parsers: the relay streams bodies of any media type to the service.
    const { credentials, namespace, service, port } = options.serviceRelay;
    app.use(
      RELAY_PATH,
      serviceProxy({ credentials, namespace, service, port, mountPath: RELAY_PATH }),
    );
  }

  // Headers sent as query parameters (`?Prefer=…`), taken out of what the lists parse.
  app.use(queryHeaders());
  const lists = listDefaults(app.get('public base url') as string | undefined);
  // The lists of the stores that page by keyset may hand out continuation tokens.
  const keysetLists = keysetListDefaults(lists, options.pageTokenSecrets);
  // The API description of this configuration: page_token on the lists that take it, 503
  // wherever the database or the Service-Request-Id store can be unreachable.
  const description = describePaymentsApi({
    pageTokens: keysetLists.continuation !== undefined,
    storage: database === undefined ? 'in-process' : 'external',
    idempotencyStorage:
      options.idempotencyStore === undefined
        ? 'in-process'
        : (options.idempotencyStorage ?? 'external'),
  });
  // The API description: the OpenAPI document, its reference page and GraphQL, mounted before
  // content negotiation: GraphQL over HTTP fixes its own media types and errors.
  mountApiDocs(app, app.get('public base url') as string | undefined, description);
  const idempotencyStore = options.idempotencyStore ?? memoryStore();
  // The v1 routes are declared here, mounted after content negotiation below: GraphQL answers
  // with the same declarations (representations, history) as the REST routes.
  const v1 = express.Router();
  v1.use(preferHeader());
  // POST is idempotent when it carries Service-Request-Id (spec, "Verbs and idempotency"):
  // creates, actions and the composite refund alike. The middleware ignores other methods.
  v1.use(serviceRequestIdempotency({ store: idempotencyStore }));
  // A filter on an enum field takes the enum's values only (the description's, as documented).
  checkFilterValues(v1, description);
  mountCreditCards({ router: v1, lists: keysetLists, cards: stores.cards, now });
  mountCustomers({ router: v1, lists: keysetLists, customers: stores.customers, now });
  // The actions' history, read by the REST history route and by GraphQL.
  const agreementHistory = stores.agreementHistory;
  const agreementActions = mountBillingAgreements({
    router: v1,
    lists,
    agreements: stores.agreements,
    now,
    history: agreementHistory,
    transaction: stores.transaction,
  });
  mountWebhooks({ router: v1, lists: keysetLists, webhooks: stores.webhooks, now });
  // Complex operations (spec, "Complex operations"), declared with resource-operations; the
  // route checker learns them from the router (complexOperationRoutes).
  const refundOperations = mountRefunds({
    router: v1,
    lists,
    payments: stores.payments,
    captures: stores.captures,
    refunds: stores.refunds,
    transaction: stores.transaction,
    now,
  });
  const [decide, evaluate] = riskOperations({ lists, decisions: stores.decisions, now });
  mountOperations(v1, [agreementActions, ...refundOperations, decide, evaluate]);
  // A create mutation is a POST like any other: Service-Request-Id makes it idempotent (on the
  // parsed body, so a reused id with another query is refused). Mounted before content
  // negotiation, its answers are compressed as content negotiation compresses the others.
  const graphql = express.Router();
  graphql.use(onlyGraphqlPaths);
  graphql.use(
    compressAnswers(),
    express.json({ limit: MAX_BODY_BYTES }),
    serviceRequestIdempotency({ store: idempotencyStore }),
    graphqlRoutes(
      stores,
      now,
      { agreementActions, agreementHistory, refund: refundOperations[0], decide },
      help,
      description,
    ).endpoint,
  );
  app.use(GRAPHQL_PATH, graphql);

  // Content negotiation: before the body parsers (it reads ISO-8859-1 and compressed JSON
  // bodies) and conditionalRequests() (whose tags name the format and coding). JSONP is on:
  // the example's data is public test data.
  // The routes mounted before it compress with the same options (ANSWER_COMPRESSION).
  app.use(
    contentNegotiation({
      jsonp: true,
      languages: EVENT_TYPE_LANGUAGES,
      maxBodyBytes: MAX_BODY_BYTES,
      compression: ANSWER_COMPRESSION,
    }),
  );
  // (end of content negotiation)

  app.use(requireJson());
  app.use(express.json({ limit: MAX_BODY_BYTES }));
  // Strong ETags on every resource answer, 304 on reads, 412 on failed preconditions.
  app.use(conditionalRequests());

  // Version discovery (/api) links the documentation from its OPTIONS answer, as every path does.
  app.use(versionedRouter({ versions: { v1 }, help }));

  app.use(notFoundHandler());
  app.use(errorHandler({ onError: options.onError }));
  // A wrong middleware order stops the service here, at start-up, not at its first request.
  assertContentNegotiationOrder(app);
  return app;
}
