import { describeEachExpress } from '@resourceful/test-support';
import { checkRoutes } from '@resourceful/versioned-router/check-routes';
import { describe, expect, it } from 'vitest';
import { complexOperationRoutes, operationPattern } from '../src/index.js';
import { buildFixture } from './fixture.js';

describeEachExpress('the route checker', (express) => {
  it('accepts every declared operation without a hand-made list', () => {
    const { app } = buildFixture(express);
    expect(checkRoutes(app, { complexOperations: complexOperationRoutes(app) })).toEqual([]);
  });

  it('still reports the operations when they are not declared to it', () => {
    const { app } = buildFixture(express);
    const paths = checkRoutes(app).map((finding) => finding.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/v1/accounts/:account_id/suspend', '/v1/risk/evaluate']),
    );
  });

  it('lists each operation route once, history and read-back routes excluded', () => {
    const { app } = buildFixture(express);
    expect(complexOperationRoutes(app).map(String)).toEqual([
      String(operationPattern('/accounts/:account_id/suspend')),
      String(operationPattern('/accounts/:account_id/re-activate')),
      String(operationPattern('/accounts/:account_id/close')),
      String(operationPattern('/orders/:order_id/refund')),
      String(operationPattern('/risk/decisions')),
      String(operationPattern('/risk/evaluate')),
      String(operationPattern('/orders-summary')),
    ]);
  });
});

describe('operationPattern', () => {
  it('matches the path under any mount prefix, parameters by position', () => {
    const pattern = operationPattern('/payments/captures/:id/refund');
    expect(pattern.test('/v1/payments/captures/:capture_id/refund')).toBe(true);
    expect(pattern.test('/payments/captures/:id/refund')).toBe(true);
    expect(pattern.test('/v1/payments/captures/:id/refunds')).toBe(false);
    expect(pattern.test('/v1/other/payments/captures/:id/refund/x')).toBe(false);
  });

  it('escapes the literal characters of a segment', () => {
    expect(operationPattern('/a.b/run').test('/v1/aXb/run')).toBe(false);
  });
});
