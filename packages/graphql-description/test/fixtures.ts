import { describeApi, type ListDescription } from '@resourceful/api-description';
import { errorHandler } from '@resourceful/error-envelope';
import { type ExpressModule, listen, type RunningServer } from '@resourceful/test-support';
import type { GraphQLSchema } from 'graphql';
import { z } from 'zod';
import { type CollectionPage, graphqlEndpoint, type ListArguments } from '../src/index.js';

const link = z.object({ href: z.string(), rel: z.string(), method: z.string().optional() });

export const CardCreate = z.object({
  payer_id: z.string().min(1),
  type: z.enum(['visa', 'mastercard']),
  number: z.string().regex(/^\d{12,19}$/, 'must be 12 to 19 digits'),
  first_name: z.string().optional(),
  billing_address: z.object({ line1: z.string(), city: z.string() }).optional(),
});

export const Card = CardCreate.extend({
  id: z.string(),
  state: z.enum(['ok', 'expired']),
  expire_year: z.number().int(),
  valid_until: z.iso.datetime(),
  metadata: z.record(z.string(), z.string()).optional(),
  create_time: z.string(),
  update_time: z.string(),
  links: z.array(link),
});

export type CardRecord = z.output<typeof Card>;

export const api = describeApi({
  title: 'Cards',
  version: '1.0.0',
  pathVersion: 'v1',
  summary: 'A card vault.',
  resources: [
    {
      name: 'CreditCard',
      path: '/vault/credit-cards',
      summary: 'A stored payment card.',
      representation: Card,
      readOnly: ['number', 'state'],
      deprecated: {
        first_name: 'Use billing_address.',
        'state.expired': 'Expired cards are deleted.',
      },
      operations: {
        list: {
          sortable: ['create_time', 'expire_year'],
          filterable: ['state'],
          timeSelectable: ['create_time'],
        },
        create: CardCreate,
        read: true,
      },
    },
  ],
});

export function sampleCards(count: number): CardRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `CARD-${i + 1}`,
    payer_id: 'user1',
    type: 'visa' as const,
    number: 'xxxxxxxxxxxx1111',
    state: 'ok' as const,
    expire_year: 2030 + i,
    valid_until: '2031-11-30T23:59:59Z',
    create_time: `2026-01-0${(i % 9) + 1}T10:00:00Z`,
    update_time: `2026-01-0${(i % 9) + 1}T10:00:00Z`,
    links: [
      { href: `https://api.test/v1/vault/credit-cards/CARD-${i + 1}`, rel: 'self', method: 'GET' },
    ],
  }));
}

/** Resolvers over an array, recording what the list resolver was asked. */
export function arrayResolvers(cards: CardRecord[]) {
  const calls: ListArguments[] = [];
  return {
    calls,
    resolvers: {
      CreditCard: {
        read: (id: string) => cards.find((card) => card.id === id),
        list: (args: ListArguments): CollectionPage => {
          calls.push(args);
          const start = (args.page - 1) * args.page_size;
          return {
            items: cards.slice(start, start + args.page_size),
            ...(args.total_required
              ? { total_items: cards.length, total_pages: Math.ceil(cards.length / args.page_size) }
              : {}),
            links: [
              {
                href: 'https://api.test/v1/vault/credit-cards?page=1',
                rel: 'first',
                method: 'GET',
              },
            ],
          };
        },
        create: (input: unknown) => {
          const card = {
            ...sampleCards(1)[0]!,
            ...(input as object),
            id: `CARD-${cards.length + 1}`,
          };
          cards.push(card as CardRecord);
          return card;
        },
      },
    },
  };
}

/**
 * An app serving `schema` at `/graphql` as the README mounts it (`express.json()` before, the
 * error handler after, its reports dropped), listening on loopback.
 */
export function serveGraphql(
  express: ExpressModule,
  schema: GraphQLSchema,
): Promise<RunningServer> {
  const app = express();
  app.use(express.json());
  app.use('/graphql', graphqlEndpoint({ schema }));
  app.use(errorHandler({ onError: () => undefined }));
  return listen(app);
}

/** A description of the cards with only a list, described by `list`. */
export function cardListApi(list: ListDescription) {
  return describeApi({
    title: 'Cards',
    version: '1.0.0',
    pathVersion: 'v1',
    resources: [
      {
        name: 'CreditCard',
        path: '/vault/credit-cards',
        summary: 'A stored payment card.',
        representation: Card,
        operations: { list },
      },
    ],
  });
}
