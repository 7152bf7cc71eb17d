import { describe, expect, it } from 'vitest';
import { answerHeaders, expectReplayOf } from '../src/index.js';

const first = {
  status: 200,
  headers: {
    'content-type': 'application/json; charset=utf-8',
    'content-length': '18',
    date: 'Mon, 23 Nov 2026 22:00:00 GMT',
    'x-request-id': 'a',
  },
  text: '{"status":"VALID"}',
  body: { status: 'VALID' },
};

describe('expectReplayOf', () => {
  it('accepts a replay that differs only in the per-response headers and the marker', () => {
    const replay = {
      ...first,
      headers: {
        ...first.headers,
        date: 'Mon, 23 Nov 2026 22:00:01 GMT',
        'x-request-id': 'b',
        'idempotent-replayed': 'true',
      },
    };
    expectReplayOf(first, replay);
  });

  it('accepts Content-Length on the replay of an answer that was sent chunked', () => {
    const { 'content-length': _, ...chunked } = first.headers;
    const streamed = { ...first, headers: { ...chunked, 'transfer-encoding': 'chunked' } };
    expectReplayOf(streamed, {
      ...first,
      headers: { ...first.headers, 'idempotent-replayed': 'true' },
    });
  });

  it('refuses a replay that gained a header the first answer did not have', () => {
    const replay = {
      ...first,
      headers: { ...first.headers, 'idempotent-replayed': 'true', etag: '"x"' },
    };
    expect(() => expectReplayOf(first, replay)).toThrow();
  });

  it('refuses a replay without the marker, or with another status or body', () => {
    expect(() => expectReplayOf(first, first)).toThrow();
    const marked = { ...first, headers: { ...first.headers, 'idempotent-replayed': 'true' } };
    expect(() => expectReplayOf(first, { ...marked, status: 201 })).toThrow();
    expect(() => expectReplayOf(first, { ...marked, text: '{}', body: {} })).toThrow();
  });

  it('lists the other headers sorted by name', () => {
    expect(answerHeaders(first).map(([name]) => name)).toEqual(['content-type']);
  });
});
