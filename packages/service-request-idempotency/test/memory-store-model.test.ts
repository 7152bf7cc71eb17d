/**
 * The memory store against a model of its rules, on seeded random sequences of calls: what
 * each call answers, and so which entries expiry and the bounds removed. The model keeps its
 * entries in an array in age order (a lock by when it was taken, a response by when it was
 * stored), drops every expired entry before each call, and evicts the oldest responses, never
 * a lock; the store does the same work lazily and with its own bookkeeping.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AcquireResult, memoryStore, type StoreEntry } from '../src/index.js';

const MAX_ENTRIES = 4;
const MAX_BYTES = 1_000;
/** Bytes the store counts for an entry besides its body: its overhead, key and fingerprint. */
const ENTRY_BYTES = 200 + 'k0'.length + 'fp'.length;

/** An answer as the model gives it: a stored response's status and body length only. */
type Seen =
  | Exclude<AcquireResult, { state: 'completed' }>
  | { state: 'completed'; fingerprint: string; status: number; body: number | null }
  | undefined;

interface ModelEntry {
  readonly key: string;
  readonly state: 'in-flight' | 'completed';
  readonly token: string;
  readonly expiresAt: number;
  /** The stored body's length; null when it was too large to keep. */
  readonly body: number | null;
}

class Model {
  entries: ModelEntry[] = [];
  time = 1_000;

  private live(): void {
    this.entries = this.entries.filter((entry) => entry.expiresAt > this.time);
  }

  private bytes(): number {
    return this.entries.reduce((sum, entry) => sum + ENTRY_BYTES + (entry.body ?? 0), 0);
  }

  private evict(wanted: number, keep?: ModelEntry): void {
    for (const entry of [...this.entries]) {
      if (this.entries.length <= wanted && this.bytes() <= MAX_BYTES) return;
      if (entry.state === 'completed' && entry !== keep) {
        this.entries = this.entries.filter((other) => other !== entry);
      }
    }
  }

  private view(entry: ModelEntry | undefined): Seen {
    if (entry === undefined) return undefined;
    return entry.state === 'in-flight'
      ? { state: 'in-flight', fingerprint: 'fp', expiresInMs: entry.expiresAt - this.time }
      : { state: 'completed', fingerprint: 'fp', status: 201, body: entry.body };
  }

  acquire(key: string, token: string, ttl: number): Seen | 'full' {
    this.live();
    const held = this.entries.find((entry) => entry.key === key);
    if (held !== undefined) return this.view(held)!;
    this.evict(MAX_ENTRIES - 1);
    if (this.entries.length >= MAX_ENTRIES) return 'full';
    this.entries.push({ key, state: 'in-flight', token, expiresAt: this.time + ttl, body: null });
    return { state: 'acquired' };
  }

  complete(key: string, token: string, ttl: number, body: number): void {
    this.live();
    const held = this.entries.find((entry) => entry.key === key);
    if (held !== undefined && (held.state !== 'in-flight' || held.token !== token)) return;
    this.entries = this.entries.filter((entry) => entry !== held);
    const kept = ENTRY_BYTES + body > MAX_BYTES ? null : body;
    const done: ModelEntry = {
      key,
      state: 'completed',
      token: '',
      expiresAt: this.time + ttl,
      body: kept,
    };
    this.entries.push(done);
    this.evict(MAX_ENTRIES, done);
  }

  release(key: string, token: string): void {
    this.live();
    this.entries = this.entries.filter(
      (entry) => entry.key !== key || entry.state !== 'in-flight' || entry.token !== token,
    );
  }

  get(key: string): Seen {
    this.live();
    return this.view(this.entries.find((entry) => entry.key === key));
  }
}

/** What the store answered, in the model's terms (the body as its length). */
function seen(result: AcquireResult | StoreEntry | undefined): Seen {
  if (result === undefined || result.state !== 'completed') return result;
  const { status, body } = result.response;
  return {
    state: 'completed',
    fingerprint: result.fingerprint,
    status,
    body: body?.length ?? null,
  };
}

const call = fc.record({
  kind: fc.constantFrom('acquire', 'complete', 'release', 'get'),
  key: fc.constantFrom('k0', 'k1', 'k2', 'k3', 'k4', 'k5'),
  token: fc.constantFrom('t0', 't1', 't2'),
  ttl: fc.integer({ min: 1, max: 60 }),
  body: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constant(900)),
  elapse: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
});

describe('memoryStore against a model of its rules', () => {
  it('answers every call of a random sequence as the model does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 80 }), async (calls) => {
        const model = new Model();
        const store = memoryStore({
          maxEntries: MAX_ENTRIES,
          maxBytes: MAX_BYTES,
          now: () => model.time,
        });
        const status = { status: 201, headers: {} };
        for (const { kind, key, token, ttl, body, elapse } of calls) {
          model.time += elapse;
          if (kind === 'acquire') {
            const expected = model.acquire(key, token, ttl);
            const answer = store.acquire(key, { fingerprint: 'fp', token, lockTtlMs: ttl });
            if (expected === 'full') await expect(answer).rejects.toThrow(/in-flight lock/);
            else expect(seen(await answer)).toEqual(expected);
          } else if (kind === 'complete') {
            model.complete(key, token, ttl, body);
            const response = { ...status, body: Buffer.alloc(body) };
            await store.complete(key, { token, fingerprint: 'fp', response, ttlMs: ttl });
          } else if (kind === 'release') {
            model.release(key, token);
            await store.release(key, token);
          } else {
            expect(seen(await store.get(key))).toEqual(model.get(key));
          }
          expect(store.size).toBeLessThanOrEqual(MAX_ENTRIES);
        }
        // Whatever the model holds at the end, the store answers for each key.
        for (const key of ['k0', 'k1', 'k2', 'k3', 'k4', 'k5']) {
          expect(seen(await store.get(key))).toEqual(model.get(key));
        }
      }),
      { seed: 1_905, numRuns: 300 },
    );
  });
});
