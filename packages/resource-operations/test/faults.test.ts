import { conditionalRequests } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  type ExpressModule,
  expectErrorEnvelope,
} from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  compositeOperation,
  computedResource,
  mountOperations,
  type Operation,
  resourceOrientedOperation,
  subResourceActions,
  transientOperation,
} from '../src/index.js';

/**
 * Faults of the code an operation calls (a result JSON cannot carry, a representation that
 * throws) reach the app's error handler as a 500, whichever step they happen in: the request
 * gets an answer and the process does not see an unhandled rejection.
 */
describeEachExpress('faults in the code an operation calls', (express) => {
  function appWith(express: ExpressModule, operations: Operation[]) {
    const app = express();
    app.use(express.json());
    app.use(conditionalRequests());
    const router = express.Router();
    mountOperations(router, operations);
    app.use('/v1', router);
    app.use(errorHandler());
    return app;
  }

  const broken = (): never => {
    throw new Error('representation failed');
  };

  describe.each([
    ['a BigInt (JSON cannot carry it)', () => ({ total: 1n })],
    ['undefined', () => undefined],
    ['a function', () => () => 1],
  ])('a result that is %s', (_, result) => {
    it('answers 500 from a transient operation', async () => {
      const app = appWith(express, [
        transientOperation({ path: '/evaluate', compute: result as () => unknown }),
      ]);
      expectErrorEnvelope(await request(app).post('/v1/evaluate'), 500);
    });

    it('answers 500 from a computed resource', async () => {
      const app = appWith(express, [
        computedResource({ path: '/summary', parameters: [], compute: result as () => unknown }),
      ]);
      expectErrorEnvelope(await request(app).get('/v1/summary'), 500);
    });
  });

  it('answers 500 when an action changed the state and its representation throws', async () => {
    const accounts = new Map([['A-1', { id: 'A-1', state: 'ACTIVE' }]]);
    const actions = subResourceActions({
      resource: '/accounts/:id',
      load: (id) => accounts.get(id),
      // Fails only on the changed resource: after perform, when the 200 is written.
      represent: (account) => (account.state === 'SUSPENDED' ? broken() : account),
      state: (account) => account.state,
      actions: {
        suspend: {
          available: () => true,
          perform: ({ resource }) => {
            accounts.set(resource.id, { ...resource, state: 'SUSPENDED' });
            return true;
          },
        },
      },
    });
    const res = await request(appWith(express, [actions])).post('/v1/accounts/A-1/suspend');
    expectErrorEnvelope(res, 500);
    expect(accounts.get('A-1')?.state).toBe('SUSPENDED');
  });

  it('answers 500 when a created record cannot be represented', async () => {
    const decide = resourceOrientedOperation({
      path: '/decisions',
      create: () => ({ id: 'D-1' }),
      load: () => ({ id: 'D-1' }),
      represent: broken,
    });
    const app = appWith(express, [decide]);
    expectErrorEnvelope(await request(app).post('/v1/decisions'), 500);
    expectErrorEnvelope(await request(app).get('/v1/decisions/D-1'), 500);
  });

  it('answers 500 when the record a composite operation created cannot be represented', async () => {
    const refund = compositeOperation({
      resource: '/orders/:id',
      name: 'refund',
      load: () => ({ id: 'O-1' }),
      representSource: (order) => order,
      available: () => true,
      create: () => ({ id: 'R-1' }),
      created: { path: '/refunds', load: () => ({ id: 'R-1' }) },
      represent: broken,
      related: () => [],
    });
    expectErrorEnvelope(
      await request(appWith(express, [refund])).post('/v1/orders/O-1/refund'),
      500,
    );
  });
});
