/**
 * The key a create stores with its row (create-keys.ts), and both stores answering a create
 * with a key already used with the record stored under it: the retry of a create applied after
 * its 503 (postgres-stalls.test.ts freezes the database for that) finds it.
 */
import { hasPostgresServer, type PostgresPool, startPostgresPool } from '@resourceful/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreateRequest, createKey } from '../src/create-keys.js';
import { migrate } from '../src/database/migrate.js';
import { newCustomer, type StoredCustomer } from '../src/resources/customers.js';
import { createStores, type Stores } from '../src/stores.js';

const create = (headers: Record<string, string>, body: unknown = { name: 'a' }): CreateRequest => ({
  method: 'POST',
  url: '/v1/customers/customers',
  originalUrl: '/v1/customers/customers',
  headers,
  body,
});

describe('the create key', () => {
  it('is absent without a Service-Request-Id', () => {
    expect(createKey(create({}))).toBeUndefined();
  });

  it('is the same for the same id, credentials and request, whichever header carries the id', () => {
    const key = createKey(create({ 'service-request-id': 'r-1', authorization: 'Bearer a' }));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(createKey(create({ 'idempotency-key': 'r-1', authorization: 'Bearer a' }))).toBe(key);
  });

  it('differs by credentials and by body', () => {
    const key = createKey(create({ 'service-request-id': 'r-1', authorization: 'Bearer a' }));
    expect(createKey(create({ 'service-request-id': 'r-1', authorization: 'Bearer b' }))).not.toBe(
      key,
    );
    expect(
      createKey(create({ 'service-request-id': 'r-1', authorization: 'Bearer a' }, { name: 'b' })),
    ).not.toBe(key);
  });
});

const customer = (id: string): StoredCustomer =>
  newCustomer(
    id,
    { merchant_id: 'M-1', merchant_customer_id: `mc-${id}` },
    '2026-11-25T00:00:00.000Z',
  );

function sharesCreateKeys(stores: () => Stores) {
  it('answers a create with a key used before with the record stored under it', async () => {
    const { customers } = stores();
    const first = customer(customers.newId());
    expect(await customers.insert(first, 'key-1')).toEqual(first);
    expect(await customers.insert(customer(customers.newId()), 'key-1')).toEqual(first);
    expect(await customers.get(first.id)).toEqual(first);
  });

  it('stores a create without a key, or with another, and frees a key with its record', async () => {
    const { customers } = stores();
    const first = customer(customers.newId());
    await customers.insert(first, 'key-2');
    const other = customer(customers.newId());
    expect(await customers.insert(other, 'key-3')).toEqual(other);
    const plain = customer(customers.newId());
    expect(await customers.insert(plain)).toEqual(plain);
    await customers.remove(first);
    const again = customer(customers.newId());
    expect(await customers.insert(again, 'key-2')).toEqual(again);
  });
}

describe('in memory', () => {
  const stores = createStores();
  sharesCreateKeys(() => stores);
});

describe.skipIf(!hasPostgresServer())('in PostgreSQL', () => {
  let postgres: PostgresPool;
  let stores: Stores;

  beforeAll(async () => {
    postgres = await startPostgresPool();
    await migrate(postgres.pool, 'create_keys');
    stores = createStores({ pool: postgres.pool, schema: 'create_keys' });
  });

  afterAll(() => postgres?.close());

  sharesCreateKeys(() => stores);
});
