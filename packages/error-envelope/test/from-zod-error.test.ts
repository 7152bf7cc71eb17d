import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, fromZodError } from '../src/index.js';

const payment = z.object({
  amount: z.object({
    total: z
      .string()
      .min(3)
      .regex(/^[0-9.]+$/),
    currency: z.string(),
  }),
});

function zodError(schema: z.ZodType, input: unknown): z.ZodError {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected the input to be refused');
  return result.error;
}

describe('fromZodError target', () => {
  it('names the field at the top level when all its problems are on that one field', () => {
    const error = fromZodError(zodError(payment, { amount: { total: 'x', currency: 'USD' } }));
    expect(error.details.map((detail) => detail.target)).toEqual(['amount.total', 'amount.total']);
    expect(error.target).toBe('amount.total');
  });

  it('names no field at the top level when the problems are on different fields', () => {
    const error = fromZodError(zodError(payment, { amount: { total: 'x' } }));
    expect(new Set(error.details.map((detail) => detail.target)).size).toBe(2);
    expect(error.target).toBeUndefined();
  });

  it('names no field when the document itself has the wrong type, as no field is at fault', () => {
    const error = fromZodError(zodError(payment, []));
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual([{ code: 'VALIDATION_ERROR', message: expect.any(String) }]);
    expect(error.target).toBeUndefined();
  });

  it('names no field when an issue past the listed 100 is on another field', () => {
    const issue = (path: string[]) => ({ code: 'custom', message: 'Bad.', path });
    const issues = [...Array.from({ length: 100 }, () => issue(['a'])), issue(['b'])];
    const error = fromZodError({ issues });
    expect(error.details).toHaveLength(100);
    expect(error.target).toBeUndefined();
    expect(fromZodError({ issues: issues.slice(0, 100) }).target).toBe('a');
  });

  it('follows the same rule in ApiError.validation', () => {
    const detail = { code: 'VALIDATION_ERROR', message: 'Bad.', target: 'amount.total' };
    expect(ApiError.validation([detail, detail]).target).toBe('amount.total');
    expect(ApiError.validation([detail, { ...detail, target: 'id' }]).target).toBeUndefined();
    expect(ApiError.validation([detail, { code: 'X', message: 'Root.' }]).target).toBeUndefined();
  });
});
