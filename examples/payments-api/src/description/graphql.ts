/**
 * @module `/graphql`: the GraphQL schema generated from the description, resolved through the
 * same stores and representation functions as the REST routes, so a card read over GraphQL is
 * the card GET answers (masked number and links included).
 */
import type { ApiDescription } from '@resourceful/api-description';
import {
  buildCollectionEnvelope,
  type CollectionSpec,
  type DataSource,
  memoryDataSource,
  parseCollectionQuery,
} from '@resourceful/collection-pagination';
import {
  type CollectionPage,
  graphqlEndpoint,
  graphqlSchema,
  type ListArguments,
  type PageArguments,
  SDL_PATH,
} from '@resourceful/graphql-description';
import type {
  HistoryStore,
  ResourceOrientedOperation,
  SubResourceActions,
} from '@resourceful/resource-operations';
import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { absoluteUrl } from '../links.js';
import type { ListedRecordStore, StoredRecord } from '../record-store.js';
import * as agreements from '../resources/billing-agreements.js';
import * as cards from '../resources/credit-cards.js';
import * as customers from '../resources/customers.js';
import * as refunds from '../resources/refunds.js';
import * as risk from '../resources/risk.js';
import * as webhooks from '../resources/webhooks.js';
import type { Stores } from '../stores.js';
import { HISTORY_LIST } from './index.js';

/** The declarations of the complex operations, whose representations GraphQL answers with. */
export interface GraphqlOperations {
  readonly agreementActions: SubResourceActions<agreements.StoredAgreement>;
  /** Where the agreement actions' history is kept. */
  readonly agreementHistory: HistoryStore;
  readonly refund: refunds.RefundOperation;
  readonly decide: ResourceOrientedOperation<risk.StoredDecision>;
}

/** The resolvers' context: the Express request the endpoint was mounted under. */
interface ExampleContext extends Record<PropertyKey, unknown> {
  readonly req: Request;
}

/** Where the example serves GraphQL (design: `POST /graphql`, `GET /graphql?query=`). */
export const GRAPHQL_PATH = '/graphql';

/**
 * The first middleware of the router the endpoint is mounted in: only the endpoint and its SDL
 * go on (to compression, the body parser, idempotency and the endpoint); any other path under
 * the mount leaves the router untouched, for the app's 404. Parsed here, its body would reach
 * content negotiation, which refuses a parsed body (a 500); compressed here, its answer would be
 * coded twice.
 */
export function onlyGraphqlPaths(req: Request, _res: Response, next: NextFunction): void {
  if (req.path === '/' || req.path === SDL_PATH) next();
  else next('router');
}

/**
 * The request as the v1 router sees it. resource-operations builds links from the mount path
 * of the router a request went through (`req.baseUrl`): `/v1` for REST, `/graphql` here.
 */
function underV1(req: Request): Request {
  return Object.create(req, { baseUrl: { value: '/v1', enumerable: true } }) as Request;
}

/** Search paging as the REST search's query string. */
function pageQuery(args: PageArguments): URLSearchParams {
  const params = new URLSearchParams({
    page: String(args.page),
    page_size: String(args.page_size),
  });
  if (args.total_required) params.set('total_required', 'true');
  return params;
}

/** The list arguments as the REST list's query string, so both read them with one parser. */
function listQuery(args: ListArguments): URLSearchParams {
  const params = new URLSearchParams({
    page: String(args.page),
    page_size: String(args.page_size),
  });
  if (args.total_required) params.set('total_required', 'true');
  if (args.sort_by !== undefined) params.set('sort_by', args.sort_by);
  if (args.sort_order !== undefined) params.set('sort_order', args.sort_order);
  for (const [name, value] of Object.entries({ ...args.filters, ...args.times }))
    params.set(name, value);
  return params;
}

/** One page of a data source, enveloped as the REST list at `path` answers it. */
async function page<T>(
  req: Request,
  path: string,
  params: URLSearchParams,
  spec: CollectionSpec,
  source: DataSource<T>,
  summary: (req: Request, record: T) => unknown,
  method: 'GET' | 'POST' = 'GET',
): Promise<CollectionPage> {
  const query = parseCollectionQuery(params, spec);
  const [total, rows] = await Promise.all([source.count(query), source.fetchPage(query)]);
  return buildCollectionEnvelope({
    items: rows.map((row) => summary(req, row)),
    query,
    url: absoluteUrl(req, `${path}?${params}`),
    totalItems: query.totalRequired ? total : undefined,
    hasMore: query.offset + rows.length < total,
    method,
  });
}

function listResolver<T>(
  collectionPath: string,
  spec: CollectionSpec,
  source: DataSource<T>,
  summary: (req: Request, record: T) => unknown,
) {
  return (args: ListArguments, { req }: ExampleContext): Promise<CollectionPage> =>
    page(req, `/v1${collectionPath}`, listQuery(args), spec, source, summary);
}

/** A sub-collection of the resource GraphQL answered as `parent` (its representation). */
function subCollectionResolver<T>(
  collectionPath: string,
  segment: string,
  spec: CollectionSpec,
  source: (id: string) => DataSource<T> | undefined | Promise<DataSource<T> | undefined>,
  summary: (req: Request, record: T) => unknown,
) {
  return async (parent: unknown, args: ListArguments, { req }: ExampleContext) => {
    const id = (parent as { id: string }).id;
    const path = `/v1${collectionPath}/${encodeURIComponent(id)}/${segment}`;
    // The parent was read a moment ago; gone since, its sub-collection is empty.
    const records = (await source(id)) ?? memoryDataSource<T>([]);
    return page(req, path, listQuery(args), spec, records, summary);
  };
}

/** Every record of a store, read at each page: the REST list's source for the same store. */
function allRecords<T extends StoredRecord>(store: ListedRecordStore<T>): DataSource<T> {
  return {
    count: async (query) => memoryDataSource(await store.all()).count(query),
    fetchPage: async (query) => memoryDataSource(await store.all()).fetchPage(query),
  };
}

function readResolver<T extends StoredRecord>(
  collection: { get(id: string): T | undefined | Promise<T | undefined> },
  represent: (req: Request, record: T) => unknown,
) {
  return async (id: string, { req }: ExampleContext) => {
    const record = await collection.get(id);
    return record === undefined ? undefined : represent(req, record);
  };
}

export function graphqlRoutes(
  stores: Stores,
  now: () => Date,
  operations: GraphqlOperations,
  /** The documentation its OPTIONS answers link with rel help, as every other path's. */
  help: string | readonly string[],
  /**
   * The app's description. Its paging kinds do not reach GraphQL: list fields take `page` and
   * `page_size` (the resolvers page by offset), never a continuation token.
   */
  description: ApiDescription,
) {
  const { agreementActions, agreementHistory, refund, decide } = operations;
  const agreementRepresentation = (req: Request, agreement: agreements.StoredAgreement) =>
    agreements.agreementRepresentation(req, agreement, agreementActions);
  const captureRepresentation = (req: Request, capture: refunds.StoredCapture) =>
    refunds.captureRepresentation(req, capture, refund);
  const schema = graphqlSchema<ExampleContext>(description, {
    resolvers: {
      CreditCard: {
        read: readResolver(stores.cards, cards.toRepresentation),
        // The input has passed CreditCardCreate (the description's create schema) already.
        create: async (input, { req }) => {
          const card = cards.newCard(
            stores.cards.newId(),
            input as cards.CreditCardInput,
            now().toISOString(),
          );
          return cards.toRepresentation(req, await stores.cards.insert(card));
        },
        list: listResolver(
          cards.COLLECTION_PATH,
          cards.CARD_LIST,
          stores.cards.source,
          cards.toSummary,
        ),
      },
      Customer: {
        read: readResolver(stores.customers, customers.toRepresentation),
        // Each create's input has passed the description's create schema, as POST's body does.
        create: async (input, { req }) =>
          customers.toRepresentation(
            req,
            await stores.customers.insert(
              customers.newCustomer(
                stores.customers.newId(),
                input as customers.CustomerInput,
                now().toISOString(),
              ),
            ),
          ),
        list: listResolver(
          customers.COLLECTION_PATH,
          customers.CUSTOMER_LIST,
          stores.customers.source,
          customers.toRepresentation,
        ),
      },
      Webhook: {
        read: readResolver(stores.webhooks, webhooks.toRepresentation),
        create: async (input, { req }) =>
          webhooks.toRepresentation(
            req,
            await stores.webhooks.insert(
              webhooks.newWebhook(
                stores.webhooks.newId(),
                input as webhooks.WebhookInput,
                now().toISOString(),
              ),
            ),
          ),
        list: listResolver(
          webhooks.COLLECTION_PATH,
          webhooks.WEBHOOK_LIST,
          stores.webhooks.source,
          webhooks.toRepresentation,
        ),
        subCollections: {
          'event-types': subCollectionResolver(
            webhooks.COLLECTION_PATH,
            'event-types',
            webhooks.EVENT_TYPE_LIST,
            async (id) => {
              const webhook = await stores.webhooks.get(id);
              return webhook && memoryDataSource(webhook.event_types);
            },
            (req, eventType) => webhooks.localizedEventType(eventType, req),
          ),
        },
      },
      BillingAgreement: {
        read: readResolver(stores.agreements, agreementRepresentation),
        create: async (input, { req }) =>
          agreementRepresentation(
            req,
            await stores.agreements.insert(
              agreements.newAgreement(
                stores.agreements.newId(),
                input as agreements.AgreementInput,
                now().toISOString(),
              ),
            ),
          ),
        list: listResolver(
          agreements.COLLECTION_PATH,
          agreements.AGREEMENT_LIST,
          allRecords(stores.agreements),
          agreementRepresentation,
        ),
        search: async (criteria, args: PageArguments, { req }) =>
          page(
            req,
            `/v1${agreements.SEARCH_PATH}`,
            pageQuery(args),
            {},
            memoryDataSource(
              (await stores.agreements.all()).filter((agreement) =>
                agreements.matchesCriteria(
                  agreement,
                  criteria as z.infer<typeof agreements.AgreementSearch>,
                ),
              ),
            ),
            agreementRepresentation,
            'POST',
          ),
        subCollections: {
          history: subCollectionResolver(
            agreements.COLLECTION_PATH,
            'history',
            HISTORY_LIST,
            async (id) =>
              (await stores.agreements.get(id)) === undefined
                ? undefined
                : agreementHistory.source(id),
            (_req, record) => record,
          ),
        },
      },
      Payment: { read: readResolver(stores.payments, refunds.paymentRepresentation) },
      Capture: {
        read: readResolver(stores.captures, captureRepresentation),
        list: listResolver(
          '/payments/captures',
          refunds.CAPTURE_LIST,
          allRecords(stores.captures),
          captureRepresentation,
        ),
        subCollections: {
          refunds: subCollectionResolver(
            '/payments/captures',
            'refunds',
            refunds.CAPTURE_REFUND_LIST,
            async (id) => {
              const capture = await stores.captures.get(id);
              return (
                capture && memoryDataSource(await refunds.refundsOfCapture(stores.refunds, capture))
              );
            },
            (req, record) => refund.representation(req, record),
          ),
        },
      },
      Refund: {
        read: readResolver(stores.refunds, (req, record) => refund.representation(req, record)),
      },
      PaymentDecision: {
        read: readResolver(stores.decisions, (req, record) => decide.representation(req, record)),
      },
    },
    operations: {
      // The input has passed DecisionRequest, the body schema of POST /v1/risk/decisions.
      createPaymentDecision: async ({ input }, { req }) =>
        decide.representation(
          req,
          await risk.recordDecision(
            stores.decisions,
            input as z.infer<typeof risk.DecisionRequest>,
            now(),
          ),
        ),
      evaluatePayment: ({ input }) =>
        risk.evaluation(input as z.infer<typeof risk.DecisionRequest>),
      refundSummary: async ({ input }) =>
        refunds.refundSummary(
          await stores.captures.all(),
          await stores.refunds.all(),
          input as z.infer<typeof refunds.RefundSummaryQuery>,
        ),
    },
    // Every create is a mutation (validated and idempotent like its POST); the actions and the
    // refund are not: their REST routes run under resource-operations' lock and record history.
    mutations: ['CreditCard', 'Customer', 'Webhook', 'BillingAgreement', 'createPaymentDecision'],
  });
  return {
    schema,
    // Mounted in the Express app, the request is Express's.
    endpoint: graphqlEndpoint<ExampleContext>({
      schema,
      context: (req) => ({ req: underV1(req as Request) }),
      help,
    }),
  };
}
