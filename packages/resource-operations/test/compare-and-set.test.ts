/**
 * `compareAndSet`: actions and composite operations on a store that checks the version itself
 * (as `UPDATE … WHERE etag = $2` does), the way instances sharing a database keep apart. The
 * store below is the other instance's view of the same record: `interleave` writes on its
 * behalf between a call's load and its write.
 */
import {
  conditionalRequests,
  etagFor,
  KeyedLock,
  StaleVersionError,
} from '@resourceful/conditional-requests';
import { ApiError, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, type ExpressModule } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ActionRecord,
  compositeOperation,
  type HistoryStore,
  memoryHistoryStore,
  mountOperations,
  subResourceActions,
} from '../src/index.js';

interface Account {
  id: string;
  state: 'ACTIVE' | 'SUSPENDED';
}

interface Order {
  id: string;
  total: number;
  refunded: number;
}

/** Records kept by version: `save` stores only over the version it was given. */
class VersionedStore<T extends { id: string }> {
  readonly records = new Map<string, T>();
  /** Runs once before the next save: another instance's write, after this call's load. */
  interleave: (() => void) | undefined;

  get(id: string): T | undefined {
    return this.records.get(id);
  }

  save(record: T, previous: T): void {
    const other = this.interleave;
    this.interleave = undefined;
    other?.();
    if (etagFor(this.records.get(record.id)) !== etagFor(previous)) throw new StaleVersionError();
    this.records.set(record.id, record);
  }
}

/** A history that refuses a taken number, as a primary key on (resource, n) does. */
function numberedHistory(): HistoryStore & { interleave?: (() => void) | undefined } {
  const inner = memoryHistoryStore();
  const taken = new Set<string>();
  const store: HistoryStore & { interleave?: (() => void) | undefined } = {
    count: (id) => inner.count(id),
    async append(id, record: ActionRecord) {
      const other = store.interleave;
      store.interleave = undefined;
      other?.();
      if (taken.has(record.id)) throw new StaleVersionError();
      taken.add(record.id);
      await inner.append(id, record);
    },
    source: (id) => inner.source(id),
  };
  return store;
}

function build(express: ExpressModule) {
  const accounts = new VersionedStore<Account>();
  accounts.records.set('ACC-1', { id: 'ACC-1', state: 'ACTIVE' });
  const orders = new VersionedStore<Order>();
  orders.records.set('ORD-1', { id: 'ORD-1', total: 100, refunded: 0 });
  const refunds = new Map<string, { id: string; order_id: string; amount: number }>();
  const history = numberedHistory();
  const move = (account: Account, state: Account['state']) => {
    if (account.state === state) return false;
    accounts.save({ ...account, state }, account);
    return true;
  };
  const actions = subResourceActions<Account, Record<string, unknown>>({
    resource: '/accounts/:account_id',
    load: (id) => accounts.get(id),
    represent: (account) => account,
    state: (account) => account.state,
    historyStore: history,
    compareAndSet: true,
    actions: {
      suspend: { available: () => true, perform: ({ resource }) => move(resource, 'SUSPENDED') },
      're-activate': { available: () => true, perform: ({ resource }) => move(resource, 'ACTIVE') },
    },
  });
  const refund = compositeOperation({
    resource: '/orders/:order_id',
    name: 'refund',
    load: (id) => orders.get(id),
    representSource: (order) => order,
    compareAndSet: true,
    body: z.object({ amount: z.number().int().positive() }),
    create: ({ source, body: { amount } }) => {
      if (source.refunded + amount > source.total) {
        throw ApiError.unprocessable('The refund exceeds the order.', { target: 'amount' });
      }
      orders.save({ ...source, refunded: source.refunded + amount }, source);
      const created = { id: `REF-${refunds.size + 1}`, order_id: source.id, amount };
      refunds.set(created.id, created);
      return created;
    },
    created: { path: '/refunds', load: (id) => refunds.get(id) },
    represent: (record) => ({ ...record }),
    related: (record) => [{ rel: 'order', path: `/orders/${record.order_id}` }],
  });
  const app = express();
  app.use(express.json());
  app.use(conditionalRequests());
  mountOperations(app, [actions, refund]);
  app.use(errorHandler());
  return { app, accounts, orders, refunds, history };
}

describeEachExpress('compareAndSet: the store checks the version', (express) => {
  describe('sub-resource actions', () => {
    it('answers 412 when another instance changed the resource after the If-Match check', async () => {
      const { app, accounts } = build(express);
      const tag = etagFor(accounts.get('ACC-1'));
      accounts.interleave = () =>
        accounts.records.set('ACC-1', { id: 'ACC-1', state: 'SUSPENDED' });
      const res = await request(app).post('/accounts/ACC-1/suspend').set('If-Match', tag).send();
      expect(res.status).toBe(412);
      const history = await request(app).get('/accounts/ACC-1/history');
      expect(history.body.items).toEqual([]);
    });

    it('runs again from a fresh load without If-Match, and records what it found', async () => {
      const { app, accounts } = build(express);
      accounts.interleave = () =>
        accounts.records.set('ACC-1', { id: 'ACC-1', state: 'SUSPENDED' });
      const res = await request(app).post('/accounts/ACC-1/suspend').send();
      expect(res.status).toBe(204);
      const history = await request(app).get('/accounts/ACC-1/history');
      expect(history.body.items).toMatchObject([
        { id: 'ACC-1-H1', outcome: 'NO_CHANGE', state_before: 'SUSPENDED' },
      ]);
    });

    it('numbers a record after one another instance appended meanwhile', async () => {
      const { app, history } = build(express);
      history.interleave = () => {
        void history.append('ACC-1', {
          id: 'ACC-1-H1',
          action: 're-activate',
          outcome: 'NO_CHANGE',
          request: {},
          state_before: 'ACTIVE',
          state_after: 'ACTIVE',
          create_time: '2026-11-23T00:00:00.000Z',
        });
      };
      const res = await request(app).post('/accounts/ACC-1/suspend').send();
      expect(res.status).toBe(200);
      const list = await request(app).get('/accounts/ACC-1/history?sort_by=create_time');
      expect(list.body.items.map((item: ActionRecord) => [item.id, item.action])).toEqual([
        ['ACC-1-H1', 're-activate'],
        ['ACC-1-H2', 'suspend'],
      ]);
    });

    it('runs a call that changed nothing again when its number was taken meanwhile', async () => {
      const { app, accounts, history } = build(express);
      // Another instance suspends and records it after this call counted and loaded ACTIVE.
      history.interleave = () => {
        accounts.records.set('ACC-1', { id: 'ACC-1', state: 'SUSPENDED' });
        void history.append('ACC-1', {
          id: 'ACC-1-H1',
          action: 'suspend',
          outcome: 'STATE_CHANGED',
          request: {},
          state_before: 'ACTIVE',
          state_after: 'SUSPENDED',
          create_time: '2026-11-23T00:00:00.000Z',
        });
      };
      // ACTIVE when loaded: re-activate changes nothing, then finds H1 taken and runs again.
      const res = await request(app).post('/accounts/ACC-1/re-activate').send();
      expect(res.status).toBe(200);
      const list = await request(app).get('/accounts/ACC-1/history?sort_by=create_time');
      expect(
        list.body.items.map((item: ActionRecord) => [item.id, item.state_before, item.state_after]),
      ).toEqual([
        ['ACC-1-H1', 'ACTIVE', 'SUSPENDED'],
        ['ACC-1-H2', 'SUSPENDED', 'ACTIVE'],
      ]);
    });
  });

  describe('composite operations', () => {
    it('checks the rule again against the source another instance changed', async () => {
      const { app, orders, refunds } = build(express);
      // Another instance refunds 70 of 100 between this call's load and its write.
      orders.interleave = () =>
        orders.records.set('ORD-1', { id: 'ORD-1', total: 100, refunded: 70 });
      const res = await request(app).post('/orders/ORD-1/refund').send({ amount: 50 });
      expect(res.status).toBe(422);
      expect(orders.get('ORD-1')).toEqual({ id: 'ORD-1', total: 100, refunded: 70 });
      expect(refunds.size).toBe(0);
    });

    it('creates the resource when the source is unchanged', async () => {
      const { app, orders } = build(express);
      const res = await request(app).post('/orders/ORD-1/refund').send({ amount: 50 });
      expect(res.status).toBe(201);
      expect(orders.get('ORD-1')?.refunded).toBe(50);
    });
  });
});

describe('compareAndSet is checked when the declaration is made', () => {
  const base = {
    resource: '/accounts/:id',
    load: () => undefined,
    represent: () => ({}),
    state: () => 'x',
    actions: { suspend: { available: () => true, perform: () => false } },
  };

  it('refuses a value that is not a boolean', () => {
    expect(() => subResourceActions({ ...base, compareAndSet: 'yes' as never })).toThrow(
      /compareAndSet/,
    );
  });

  it('refuses a lock together with compareAndSet, and a lock that is not a KeyedLock', () => {
    expect(() =>
      compositeOperation({
        resource: '/orders/:id',
        name: 'refund',
        load: () => undefined,
        representSource: () => ({}),
        create: () => ({}),
        created: { path: '/refunds', load: () => undefined },
        represent: () => ({}),
        related: () => [],
        compareAndSet: true,
        lock: new KeyedLock(),
      }),
    ).toThrow(/Pass one or the other/);
    expect(() => subResourceActions({ ...base, lock: { run() {} } as never })).toThrow(/KeyedLock/);
  });
});
