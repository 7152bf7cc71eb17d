/**
 * @module Assertions on a `Service-Request-Id` replay: the stored answer reproduced exactly.
 */
import { expect } from 'vitest';

interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text?: string;
  body: unknown;
}

/**
 * Headers that belong to one response rather than to the answer a replay reproduces: the time
 * it was sent (`Date`), the request it answered (`X-Request-Id`), the connection (hop-by-hop,
 * RFC 9110 §7.6.1), the message framing (RFC 9112 §6: a first answer streamed `chunked` is
 * replayed with `Content-Length`, its whole body being known; the bodies are compared byte for
 * byte instead) and the replay marker, which only a replay carries.
 */
export const PER_RESPONSE_HEADERS: readonly string[] = [
  'date',
  'x-request-id',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'idempotent-replayed',
];

/** The headers of a response without the per-response ones, sorted by name. */
export function answerHeaders(
  res: ResponseLike,
  perResponse: readonly string[] = PER_RESPONSE_HEADERS,
): [string, string | string[] | undefined][] {
  return Object.entries(res.headers)
    .filter(([name]) => !perResponse.includes(name.toLowerCase()))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Asserts that `replay` is `first` as sent: the same status, body and header set (names and
 * values, apart from the per-response headers), marked `Idempotent-Replayed: true` where the
 * first answer was not.
 */
export function expectReplayOf(first: ResponseLike, replay: ResponseLike): void {
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.status).toBe(first.status);
  expect(answerHeaders(replay)).toEqual(answerHeaders(first));
  expect(replay.text).toBe(first.text);
  expect(replay.body).toEqual(first.body);
}
