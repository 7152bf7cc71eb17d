/**
 * @module Assertions on the `{ "error": { … } }` envelope every package answers with.
 */
import { expect } from 'vitest';

export interface EnvelopeExpectation {
  code?: string;
  target?: string;
}

interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Asserts status, JSON content type, the exact envelope shape, and optionally code and target. */
export function expectErrorEnvelope(
  res: ResponseLike,
  status: number,
  expected: EnvelopeExpectation = {},
): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.body).toBeTypeOf('object');
  const body = res.body as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['error']);
  const error = body.error as Record<string, unknown>;
  expect(error.code).toBeTypeOf('string');
  expect(error.message).toBeTypeOf('string');
  if (expected.code !== undefined) expect(error.code).toBe(expected.code);
  if (expected.target !== undefined) expect(error.target).toBe(expected.target);
}
