/**
 * `transaction`: each action call's write (`perform`, then the history append) runs inside the
 * function the service passes, so a database can make the state change and its record one
 * transaction. The transaction below keeps an undo entry for each account write and holds back
 * the history records until the work resolves, as a database's COMMIT and ROLLBACK would.
 */
import { conditionalRequests, StaleVersionError } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, type ExpressModule } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  type ActionRecord,
  type HistoryStore,
  memoryHistoryStore,
  mountOperations,
  subResourceActions,
} from '../src/index.js';

interface Account {
  id: string;
  state: 'ACTIVE' | 'SUSPENDED';
}

interface Options {
  /** Makes the history append fail: `'stale'` once with StaleVersionError, or always. */
  failAppend?: 'stale' | 'always';
}

function build(express: ExpressModule, options: Options = {}) {
  const accounts = new Map<string, Account>([['ACC-1', { id: 'ACC-1', state: 'ACTIVE' }]]);
  const committed = memoryHistoryStore();
  let staged: (() => Promise<void>)[] | undefined;
  let undo: (() => void)[] = [];
  let staleOnce = options.failAppend === 'stale';
  const log: string[] = [];
  const history: HistoryStore = {
    count: (id) => committed.count(id),
    async append(id, record: ActionRecord) {
      if (staged === undefined) throw new Error('append outside the transaction');
      if (staleOnce) {
        staleOnce = false;
        throw new StaleVersionError();
      }
      if (options.failAppend === 'always') throw new Error('the history is full');
      staged.push(async () => {
        await committed.append(id, record);
      });
    },
    source: (id) => committed.source(id),
  };
  const actions = subResourceActions<Account, Record<string, unknown>>({
    resource: '/accounts/:account_id',
    load: (id) => accounts.get(id),
    represent: (account) => account,
    state: (account) => account.state,
    historyStore: history,
    actions: {
      suspend: {
        available: (account) => account.state === 'ACTIVE',
        perform: ({ resource }) => {
          if (staged === undefined) throw new Error('perform outside the transaction');
          if (resource.state === 'SUSPENDED') return false;
          accounts.set(resource.id, { ...resource, state: 'SUSPENDED' });
          undo.push(() => accounts.set(resource.id, resource));
          return true;
        },
      },
    },
    async transaction(work) {
      staged = [];
      undo = [];
      log.push('begin');
      try {
        const result = await work();
        for (const write of staged) await write();
        log.push('commit');
        return result;
      } catch (error) {
        for (const step of undo.reverse()) step();
        log.push('rollback');
        throw error;
      } finally {
        staged = undefined;
      }
    },
  });
  const app = express();
  app.use(express.json());
  app.use(conditionalRequests());
  mountOperations(app, [actions]);
  app.use(errorHandler());
  return { app, accounts, committed, log };
}

describeEachExpress('transaction: the change and its record as one unit', (express) => {
  describe('sub-resource actions', () => {
    it('runs perform and the history append inside it, and commits both', async () => {
      const { app, accounts, committed, log } = build(express);
      const res = await request(app).post('/accounts/ACC-1/suspend').send({});
      expect(res.status).toBe(200);
      expect(res.body.state).toBe('SUSPENDED');
      expect(log).toEqual(['begin', 'commit']);
      expect(accounts.get('ACC-1')?.state).toBe('SUSPENDED');
      expect(await committed.count('ACC-1')).toBe(1);
    });

    it('rolls back the change when its record cannot be stored, and answers 500', async () => {
      const { app, accounts, committed, log } = build(express, { failAppend: 'always' });
      const res = await request(app).post('/accounts/ACC-1/suspend').send({});
      expect(res.status).toBe(500);
      expect(log).toEqual(['begin', 'rollback']);
      expect(accounts.get('ACC-1')?.state).toBe('ACTIVE');
      expect(await committed.count('ACC-1')).toBe(0);
    });

    it('runs the call again in a new transaction after a StaleVersionError', async () => {
      const { app, accounts, committed, log } = build(express, { failAppend: 'stale' });
      const res = await request(app).post('/accounts/ACC-1/suspend').send({});
      expect(res.status).toBe(200);
      expect(log).toEqual(['begin', 'rollback', 'begin', 'commit']);
      expect(accounts.get('ACC-1')?.state).toBe('SUSPENDED');
      expect(await committed.count('ACC-1')).toBe(1);
    });
  });
});
