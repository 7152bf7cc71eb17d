import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { asyncHandler, errorHandler } from '../src/index.js';

describe('asyncHandler', () => {
  it('passes a rejection to next exactly once', async () => {
    const next = vi.fn();
    const failure = new Error('x');
    asyncHandler(async () => {
      throw failure;
    })({}, {}, next);
    await vi.waitFor(() => expect(next).toHaveBeenCalledTimes(1));
    expect(next).toHaveBeenCalledWith(failure);
  });

  it('passes a synchronous throw to next', () => {
    const next = vi.fn();
    asyncHandler(() => {
      throw new Error('sync');
    })({}, {}, next);
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('turns a rejection without a reason into an Error', async () => {
    const next = vi.fn();
    asyncHandler(() => Promise.reject(undefined))({}, {}, next);
    await vi.waitFor(() => expect(next).toHaveBeenCalledTimes(1));
    expect(next.mock.calls[0]?.[0]).toBeInstanceOf(Error);
  });

  it.each([[undefined], [null], [5], ['handler'], [{}]])(
    'refuses %j at construction with ERR_RESOURCEFUL_INVALID_OPTION',
    (handler) => {
      expect(() => asyncHandler(handler as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_RESOURCEFUL_INVALID_OPTION',
          factory: 'asyncHandler',
          option: 'handler',
        }),
      );
    },
  );

  it('does not call next when the handler resolves', async () => {
    const next = vi.fn();
    asyncHandler(async () => 'done')({}, {}, next);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(next).not.toHaveBeenCalled();
  });
});

// Express 5 routes a rejection with `err || new Error('Promise rejected')`: a falsy reason given
// to next() as it is would say "no error" and run the next handler.
describeEachExpress('asyncHandler rejecting with a falsy reason', (express) => {
  it.each([[''], [0], [false], [null]])(
    'answers 500 for a rejection with %j, never the next handler',
    async (reason) => {
      const app = express();
      app.get(
        '/x',
        asyncHandler(() => Promise.reject(reason)),
      );
      app.get('/x', (_req, res) => {
        res.json({ ranNext: true });
      });
      app.use(errorHandler());
      const res = await request(app).get('/x');
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
    },
  );
});
