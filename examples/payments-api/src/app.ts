/**
 * @module The payments API as an Express app, built by a function so tests can run it under
 * Express 4 and 5 and with their own clock.
 */

import { conditionalRequests } from '@resourceful/conditional-requests';
import { contentNegotiation } from '@resourceful/content-negotiation';
import {
  type ErrorHandlerOptions,
  errorHandler,
  notFoundHandler,
} from '@resourceful/error-envelope';
import { type ClusterCredentials, serviceProxy } from '@resourceful/k8s-service-proxy';
import { preferHeader } from '@resourceful/prefer-header';
import {
  type IdempotencyStore,
  memoryStore,
  serviceRequestIdempotency,
} from '@resourceful/service-request-idempotency';
import { versionedRouter } from '@resourceful/versioned-router';
import express5, { type Express } from 'express';
import { listDefaults } from './lists.js';
import { requireJson } from './require-json.js';
import { mountBillingAgreements } from './resources/billing-agreements.js';
import { mountCreditCards } from './resources/credit-cards.js';
import { mountCustomers } from './resources/customers.js';
import { mountRefunds } from './resources/refunds.js';
import { mountRisk } from './resources/risk.js';
import { EVENT_TYPE_LANGUAGES, mountWebhooks } from './resources/webhooks.js';
import { seed } from './seed.js';
import { BODY_LIMITS } from './server-limits.js';
import { createStores } from './stores.js';
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
  /** Relay `RELAY_PATH` to a cluster service through the control plane's service proxy. */
  serviceRelay?: ServiceRelayOptions;
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

  const stores = createStores();
  if (options.seed ?? true) seed(stores, now());

  app.use(limitUrlLength);

  if (options.serviceRelay !== undefined) {
    // Before the body parsers: the relay streams bodies of any media type to the service.
    const { credentials, namespace, service, port } = options.serviceRelay;
    app.use(
      RELAY_PATH,
      serviceProxy({ credentials, namespace, service, port, mountPath: RELAY_PATH }),
    );
  }

  // Content negotiation: before the body parsers (it reads ISO-8859-1 and compressed JSON
  // bodies) and conditionalRequests() (whose tags name the format and coding). JSONP is on:
  // the example's data is public test data.
  app.use(contentNegotiation({ jsonp: true, languages: EVENT_TYPE_LANGUAGES }));
  // (end of content negotiation)

  app.use(requireJson());
  app.use(express.json({ limit: BODY_LIMITS.json }));
  // Strong ETags on every resource answer, 304 on reads, 412 on failed preconditions.
  app.use(conditionalRequests());

  const v1 = express.Router();
  v1.use(preferHeader());
  // POST is idempotent when it carries Service-Request-Id (spec, "Verbs and idempotency"):
  // creates, actions and the composite refund alike. The middleware ignores other methods.
  v1.use(serviceRequestIdempotency({ store: options.idempotencyStore ?? memoryStore() }));
  const lists = listDefaults(app.get('public base url') as string | undefined);
  mountCreditCards({ router: v1, lists, cards: stores.cards, now });
  mountCustomers({ router: v1, lists, customers: stores.customers, now });
  mountBillingAgreements({ router: v1, lists, agreements: stores.agreements, now });
  mountWebhooks({ router: v1, lists, webhooks: stores.webhooks, now });
  mountRefunds({ router: v1, lists, captures: stores.captures, refunds: stores.refunds, now });
  mountRisk({ router: v1, decisions: stores.decisions, now });
  app.use(versionedRouter({ versions: { v1 } }));

  app.use(notFoundHandler());
  app.use(errorHandler({ onError: options.onError }));
  return app;
}
