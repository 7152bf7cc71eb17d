/**
 * @module `/graphql`: the GraphQL schema generated from the description, resolved through the
 * same stores and representation functions as the REST routes, so a card read over GraphQL is
 * the card GET answers (masked number and links included).
 */
import {
  buildCollectionEnvelope,
  type CollectionSpec,
  type DataSource,
  parseCollectionQuery,
} from '@resourceful/collection-pagination';
import {
  type CollectionPage,
  graphqlEndpoint,
  graphqlSchema,
  type ListArguments,
} from '@resourceful/graphql-description';
import type { Request } from 'express';
import { absoluteUrl } from '../links.js';
import type { RecordStore, StoredRecord } from '../record-store.js';
import * as cards from '../resources/credit-cards.js';
import * as customers from '../resources/customers.js';
import * as webhooks from '../resources/webhooks.js';
import type { Stores } from '../stores.js';
import { paymentsApi } from './index.js';

/** The resolvers' context: the Express request the endpoint was mounted under. */
interface ExampleContext extends Record<PropertyKey, unknown> {
  readonly req: Request;
}

/** Where the example serves GraphQL (design: `POST /graphql`, `GET /graphql?query=`). */
export const GRAPHQL_PATH = '/graphql';

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

function listResolver<T>(
  collectionPath: string,
  spec: CollectionSpec,
  source: DataSource<T>,
  summary: (req: Request, record: T) => unknown,
) {
  return async (args: ListArguments, { req }: ExampleContext): Promise<CollectionPage> => {
    const params = listQuery(args);
    const query = parseCollectionQuery(params, spec);
    const [total, rows] = await Promise.all([source.count(query), source.fetchPage(query)]);
    return buildCollectionEnvelope({
      items: rows.map((row) => summary(req, row)),
      query,
      url: absoluteUrl(req, `/v1${collectionPath}?${params}`),
      totalItems: query.totalRequired ? total : undefined,
      hasMore: query.offset + rows.length < total,
    });
  };
}

function readResolver<T extends StoredRecord>(
  collection: RecordStore<T>,
  represent: (req: Request, record: T) => unknown,
) {
  return async (id: string, { req }: ExampleContext) => {
    const record = await collection.get(id);
    return record === undefined ? undefined : represent(req, record);
  };
}

export function graphqlRoutes(stores: Stores, now: () => Date) {
  const schema = graphqlSchema<ExampleContext>(paymentsApi, {
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
        list: listResolver(
          customers.COLLECTION_PATH,
          customers.CUSTOMER_LIST,
          stores.customers.source,
          customers.toRepresentation,
        ),
      },
      Webhook: {
        read: readResolver(stores.webhooks, webhooks.toRepresentation),
        list: listResolver(
          webhooks.COLLECTION_PATH,
          webhooks.WEBHOOK_LIST,
          stores.webhooks.source,
          webhooks.toRepresentation,
        ),
      },
    },
    mutations: ['CreditCard'],
  });
  return {
    schema,
    // Mounted in the Express app, the request is Express's.
    endpoint: graphqlEndpoint<ExampleContext>({
      schema,
      context: (req) => ({ req: req as Request }),
    }),
  };
}
