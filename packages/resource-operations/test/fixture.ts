/**
 * A small service declaring one operation of each kind, built for Express 4 or 5: accounts with
 * `suspend` / `re-activate`, orders refunded by a composite `refund`, decisions (resource-oriented),
 * `evaluate` (transient) and an order summary (read-only computed).
 */
import { conditionalRequests } from '@resourceful/conditional-requests';
import { ApiError, errorHandler, notFoundHandler } from '@resourceful/error-envelope';
import { memoryStore, serviceRequestIdempotency } from '@resourceful/service-request-idempotency';
import type { ExpressModule } from '@resourceful/test-support';
import { versionedRouter } from '@resourceful/versioned-router';
import { z } from 'zod';
import {
  type CompositeOperation,
  compositeOperation,
  computedResource,
  type HistoryStore,
  memoryHistoryStore,
  mountOperations,
  type OperationRequest,
  resourceOrientedOperation,
  type SubResourceActions,
  subResourceActions,
  transientOperation,
} from '../src/index.js';

export interface Account {
  id: string;
  state: 'ACTIVE' | 'SUSPENDED';
  version: number;
}

export interface Order {
  id: string;
  total: number;
  refunded: number;
}

export interface Refund {
  id: string;
  order_id: string;
  amount: number;
}

export interface Decision {
  id: string;
  code: string;
}

export interface Fixture {
  app: ReturnType<ExpressModule>;
  accounts: Map<string, Account>;
  orders: Map<string, Order>;
  refunds: Map<string, Refund>;
  decisions: Map<string, Decision>;
  history: HistoryStore;
  /** Counts of calls that reached each operation's code. */
  calls: Record<string, number>;
  /** Awaited inside `suspend` and `refund` between reading and writing: widens races. */
  pause: () => Promise<void>;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface FixtureOptions {
  publicBaseUrl?: string;
  /** The clock of the account actions (a fixed one records calls in the same millisecond). */
  now?: () => Date;
}

export function buildFixture(express: ExpressModule, options: FixtureOptions = {}) {
  const accounts = new Map<string, Account>([
    ['ACC-1', { id: 'ACC-1', state: 'ACTIVE', version: 1 }],
    ['ACC-2', { id: 'ACC-2', state: 'SUSPENDED', version: 1 }],
  ]);
  const orders = new Map<string, Order>([['ORD-1', { id: 'ORD-1', total: 10, refunded: 0 }]]);
  const refunds = new Map<string, Refund>();
  const decisions = new Map<string, Decision>();
  const history = memoryHistoryStore();
  const calls: Record<string, number> = {};
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const fixture: Fixture = {
    app: express(),
    accounts,
    orders,
    refunds,
    decisions,
    history,
    calls,
    pause: tick,
  };
  const publicBaseUrl = options.publicBaseUrl;
  const link = publicBaseUrl === undefined ? {} : { publicBaseUrl };
  let sequence = 0;

  const Note = z.object({ note: z.string().max(20).optional() }).strict();

  const accountActions: SubResourceActions<Account> = subResourceActions({
    ...link,
    resource: '/accounts/:account_id',
    load: (id) => accounts.get(id),
    notFound: { message: 'The account does not exist.' },
    represent: (account, req) => ({ ...account, links: accountActions.links(req, account) }),
    state: (account) => account.state,
    actor: (req: OperationRequest) => {
      const user = req.headers['x-user'];
      return typeof user === 'string' ? user : undefined;
    },
    historyStore: history,
    historyPaging: { defaultPageSize: 2 },
    ...(options.now === undefined ? {} : { now: options.now }),
    actions: {
      suspend: {
        body: Note,
        available: (account) => account.state === 'ACTIVE',
        perform: async ({ resource }) => {
          count('suspend');
          const before = resource.state;
          await fixture.pause();
          if (before === 'SUSPENDED') return false;
          accounts.set(resource.id, {
            ...resource,
            state: 'SUSPENDED',
            version: resource.version + 1,
          });
          return true;
        },
      },
      're-activate': {
        body: Note,
        available: (account) => account.state === 'SUSPENDED',
        perform: ({ resource }) => {
          count('re-activate');
          if (resource.state === 'ACTIVE') return false;
          if (resource.id === 'ACC-LOCKED') {
            throw ApiError.unprocessable('Locked.', { innererror: { code: 'ACCOUNT_LOCKED' } });
          }
          accounts.set(resource.id, {
            ...resource,
            state: 'ACTIVE',
            version: resource.version + 1,
          });
          return true;
        },
      },
      close: {
        available: () => false,
        perform: () => false,
      },
    },
  });

  const representOrder = (order: Order, req: OperationRequest): Record<string, unknown> => ({
    ...order,
    links: refund.links(req, order),
  });

  const refund: CompositeOperation<Order, Refund> = compositeOperation({
    ...link,
    resource: '/orders/:order_id',
    name: 'refund',
    load: (id) => orders.get(id),
    notFound: { message: 'The order does not exist.' },
    representSource: representOrder,
    available: (order) => order.refunded < order.total,
    body: z.object({ amount: z.number().positive().max(1_000_000) }).strict(),
    create: async ({ source, body }) => {
      count('refund');
      const remaining = source.total - source.refunded;
      await fixture.pause();
      if (body.amount > remaining) {
        throw ApiError.unprocessable('The refund exceeds what is left.', {
          target: 'amount',
          innererror: { code: 'REFUND_EXCEEDS_ORDER' },
        });
      }
      orders.set(source.id, { ...source, refunded: source.refunded + body.amount });
      const record: Refund = { id: `REF-${++sequence}`, order_id: source.id, amount: body.amount };
      refunds.set(record.id, record);
      return record;
    },
    created: {
      path: '/refunds',
      load: (id) => refunds.get(id),
      notFound: { message: 'The refund does not exist.', target: 'refund_id' },
    },
    represent: (record) => ({ ...record }),
    related: (record) => [{ rel: 'order', path: `/orders/${record.order_id}` }],
  });

  const decide = resourceOrientedOperation({
    ...link,
    path: '/risk/decisions',
    body: z.object({ code: z.string().min(1).max(50) }),
    create: ({ body }) => {
      count('decide');
      const decision = { id: `DEC-${++sequence}`, code: body.code };
      decisions.set(decision.id, decision);
      return decision;
    },
    // null for a missing decision (as Prisma's findUnique answers); the other loaders answer
    // undefined: both are a 404.
    load: (id) => decisions.get(id) ?? null,
    notFound: { message: 'The decision does not exist.', target: 'decision_id' },
    represent: (decision) => ({ ...decision }),
  });

  const evaluate = transientOperation({
    path: '/risk/evaluate',
    body: z.object({ code: z.string().min(1).max(50) }),
    compute: ({ body }) => {
      count('evaluate');
      return { status: body.code.startsWith('BAD') ? 'INVALID' : 'VALID' };
    },
  });

  const summary = computedResource({
    path: '/orders-summary',
    parameters: ['min_total', 'state'],
    allowedParameters: ['Prefer'],
    query: z.object({
      min_total: z.coerce.number().int().min(0).max(1_000_000).default(0),
      state: z.enum(['open', 'refunded']).optional(),
    }),
    compute: ({ query }) => {
      const selected = [...orders.values()].filter(
        (order) =>
          order.total >= query.min_total &&
          (query.state === undefined ||
            (query.state === 'refunded') === order.refunded >= order.total),
      );
      return {
        order_count: selected.length,
        refunded_total: selected.reduce((sum, order) => sum + order.refunded, 0),
      };
    },
  });

  const app = fixture.app;
  app.use(express.json());
  app.use(conditionalRequests());
  const v1 = express.Router();
  v1.use(serviceRequestIdempotency({ store: memoryStore() }));
  v1.get('/accounts/:account_id', (req, res, next) => {
    const account = accounts.get(req.params.account_id);
    if (account === undefined) return next(ApiError.notFound());
    res.json({ ...account, links: accountActions.links(req, account) });
  });
  v1.get('/orders/:order_id', (req, res, next) => {
    const order = orders.get(req.params.order_id);
    if (order === undefined) return next(ApiError.notFound());
    res.json(representOrder(order, req));
  });
  mountOperations(v1, [accountActions, refund, decide, evaluate, summary]);
  app.use(versionedRouter({ versions: { v1 } }));
  app.use(notFoundHandler());
  app.use(errorHandler());
  return fixture;
}
