import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizationPrincipal, requestFingerprint, scopedKey } from '../src/index.js';

const base = { method: 'POST', url: '/v1/things' };

describe('requestFingerprint', () => {
  it('is the same for the same method, path and body content', () => {
    expect(requestFingerprint({ ...base, body: { a: 1, b: [1, { c: 2, d: null }] } })).toBe(
      requestFingerprint({ ...base, body: { b: [1, { d: null, c: 2 }], a: 1 } }),
    );
  });

  it.each([
    ['method', { ...base, method: 'PATCH', body: {} }],
    ['path', { ...base, url: '/v1/other', body: {} }],
    ['query', { ...base, url: '/v1/things?x=1', body: {} }],
    ['body value', { ...base, body: { a: 1 } }],
    ['array order', { ...base, body: [] }],
  ])('changes with the %s', (_title, request) => {
    expect(requestFingerprint(request)).not.toBe(requestFingerprint({ ...base, body: {} }));
  });

  // Stored entries keep their fingerprints across upgrades (Redis keeps them for ttlMs): the
  // digest of a given request must not change with the implementation.
  it('is the SHA-256 of method, URL and the canonical body, with binary parts as bytes', () => {
    const sha256 = (...parts: (string | Uint8Array)[]) => {
      const hash = createHash('sha256');
      for (const part of parts) hash.update(part);
      return hash.digest('hex');
    };
    expect(requestFingerprint({ ...base, body: { b: [1, 'x'], a: null } })).toBe(
      sha256('POST\n/v1/things\n', '{"a":null,"b":[1,"x"]}'),
    );
    expect(requestFingerprint({ ...base, body: { file: Buffer.from('ab'), n: 1 } })).toBe(
      sha256('POST\n/v1/things\n', '{"file":b2:', Buffer.from('ab'), ',"n":1}'),
    );
    expect(scopedKey('p', 'id')).toBe(sha256('p\u0000id'));
  });

  // The digest is computed by a recursive walk for ordinary bodies and by an iterative one for
  // bodies with binary parts or nested deeper than the recursion's limit: both must give the
  // documented canonical form, whatever the value.
  it('gives the digest of the canonical form for bodies of every shape and depth', () => {
    const canonical = (value: unknown): (string | Uint8Array)[] => {
      if (ArrayBuffer.isView(value)) {
        const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
        return [`b${bytes.byteLength}:`, bytes];
      }
      if (Array.isArray(value)) {
        const items = Array.from({ length: value.length }, (_, i) => canonical(value[i]));
        return ['[', ...items.flatMap((item, i) => (i === 0 ? item : [',', ...item])), ']'];
      }
      if (value !== null && typeof value === 'object') {
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record).sort();
        const members = keys.map((key) => [`${JSON.stringify(key)}:`, ...canonical(record[key])]);
        return ['{', ...members.flatMap((member, i) => (i === 0 ? member : [',', ...member])), '}'];
      }
      if (value === undefined) return ['u'];
      if (typeof value === 'function') return ['f'];
      if (typeof value === 'bigint' || typeof value === 'symbol') return [String(value)];
      return [JSON.stringify(value)];
    };
    const digest = (body: unknown) => {
      const hash = createHash('sha256').update('POST\n/v1/things\n');
      for (const part of canonical(body)) hash.update(part);
      return hash.digest('hex');
    };
    // Seeded, so every run checks the same values.
    let seed = 19;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const leaves = [0, -1.5, 1e21, Number.NaN, true, false, null, undefined, '', 'é"\\\n', 7n];
    const randomValue = (depth: number): unknown => {
      const pick = random();
      if (depth <= 0 || pick < 0.3) return leaves[Math.floor(random() * leaves.length)];
      if (pick < 0.35) return Buffer.from([depth, 0, 255]);
      const size = 1 + Math.floor(random() * 3);
      if (pick < 0.65) return Array.from({ length: size }, () => randomValue(depth - 1));
      return Object.fromEntries(
        Array.from({ length: size }, (_, i) => [
          `k${Math.floor(random() * 9)}${i}`,
          randomValue(depth - 1),
        ]),
      );
    };
    const nested = (depth: number, inner: unknown): unknown =>
      depth === 0 ? inner : { a: [nested(depth - 1, inner)] };
    const bodies: unknown[] = Array.from({ length: 200 }, () => randomValue(6));
    for (const depth of [30, 31, 32, 33, 40]) bodies.push(nested(depth, { z: 1, y: [2] }));
    bodies.push(
      nested(31, Buffer.from('deep')),
      new Array(3).fill(1, 0, 1),
      JSON.parse('{"__proto__":{"b":1}}'),
    );
    for (const body of bodies) expect(requestFingerprint({ ...base, body })).toBe(digest(body));
  });

  it('tells apart values that print alike', () => {
    const fingerprints = new Set(
      [1, '1', [1], { 1: 1 }, null, undefined, true, 'true', Buffer.from('1')].map((body) =>
        requestFingerprint({ ...base, body }),
      ),
    );
    expect(fingerprints.size).toBe(9);
  });

  it('ignores the id given as a query parameter', () => {
    expect(
      requestFingerprint({ ...base, url: '/v1/things?Service-Request-Id=abc&x=1', body: {} }, [
        'Service-Request-Id',
      ]),
    ).toBe(requestFingerprint({ ...base, url: '/v1/things?x=1', body: {} }));
  });

  it('is the same whether the id came as a header or next to encoded query parameters', () => {
    const names = ['Service-Request-Id'];
    const inHeader = requestFingerprint(
      { ...base, url: '/v1/things?note=a%20b&x=1', body: {} },
      names,
    );
    const inQuery = requestFingerprint(
      { ...base, url: '/v1/things?note=a%20b&Service-Request-Id=abc&x=1', body: {} },
      names,
    );
    expect(inQuery).toBe(inHeader);
  });

  it('prefers originalUrl over a router-relative url', () => {
    expect(requestFingerprint({ ...base, url: '/', originalUrl: '/v1/things' })).toBe(
      requestFingerprint(base),
    );
  });

  it('hashes a body nested 100000 levels deep without overflowing the stack', () => {
    const depth = 100_000;
    const body: unknown = JSON.parse('['.repeat(depth) + ']'.repeat(depth));
    expect(requestFingerprint({ ...base, body })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('treats a __proto__ key as data', () => {
    const body: unknown = JSON.parse('{"__proto__":{"admin":true}}');
    expect(requestFingerprint({ ...base, body })).not.toBe(
      requestFingerprint({ ...base, body: {} }),
    );
  });
});

describe('identity scoping', () => {
  it('hashes the Authorization header and never keeps it', () => {
    const principal = authorizationPrincipal({ headers: { authorization: 'Bearer secret' } });
    expect(principal).toMatch(/^[0-9a-f]{64}$/);
    expect(principal).not.toContain('secret');
  });

  it('uses the empty principal for anonymous callers', () => {
    expect(authorizationPrincipal({ headers: {} })).toBe('');
  });

  it('gives each principal its own key for one id', () => {
    expect(scopedKey('a', 'id')).not.toBe(scopedKey('b', 'id'));
    expect(scopedKey('a', 'bid')).not.toBe(scopedKey('ab', 'id'));
  });
});
