/**
 * @module The example's schema, as versioned migrations: each runs once per schema, in order,
 * recorded in `schema_migrations`. Never edit one that has shipped; add the next version.
 *
 * Each resource table keeps the stored record as `json` (its text as written, so key order and
 * so the answers are the same bytes as the in-memory mode; `jsonb` would reorder keys), `etag`
 * (the tag of that text, for compare-and-set writes), and beside it the columns its list sorts
 * and filters by, written with the record. Text columns use the "C" collation, which orders as
 * JavaScript compares strings (the in-memory mode), whatever the database's default.
 * Every sortable column has an index on `(column, id)`: the order a page and a continuation
 * token walk (collection-pagination-pg's README, "Indexes").
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Runs with `search_path` set to the target schema. */
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'cards, customers and webhooks',
    sql: `
      CREATE TABLE cards (
        id text COLLATE "C" PRIMARY KEY,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL,
        expire_year text COLLATE "C" NOT NULL,
        last_name text COLLATE "C",
        payer_id text COLLATE "C" NOT NULL,
        state text COLLATE "C" NOT NULL
      );
      CREATE INDEX cards_create_time ON cards (create_time, id);
      CREATE INDEX cards_update_time ON cards (update_time, id);
      CREATE INDEX cards_expire_year ON cards (expire_year, id);
      CREATE INDEX cards_last_name ON cards (last_name, id);
      CREATE INDEX cards_payer_id ON cards (payer_id);

      CREATE TABLE customers (
        id text COLLATE "C" PRIMARY KEY,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL,
        last_name text COLLATE "C",
        merchant_id text COLLATE "C" NOT NULL,
        merchant_customer_id text COLLATE "C" NOT NULL
      );
      CREATE INDEX customers_create_time ON customers (create_time, id);
      CREATE INDEX customers_update_time ON customers (update_time, id);
      CREATE INDEX customers_last_name ON customers (last_name, id);
      CREATE INDEX customers_merchant_id ON customers (merchant_id);

      CREATE TABLE webhooks (
        id text COLLATE "C" PRIMARY KEY,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL,
        url text COLLATE "C" NOT NULL
      );
      CREATE INDEX webhooks_create_time ON webhooks (create_time, id);
      CREATE INDEX webhooks_update_time ON webhooks (update_time, id);
      CREATE INDEX webhooks_url ON webhooks (url, id);
    `,
  },
  {
    version: 2,
    name: 'agreements, payments, captures, refunds, decisions and the actions history',
    // `seq` numbers rows in creation order: the in-memory collections list in insertion order
    // (their lists, search and a capture's refunds), and these tables answer alike.
    sql: `
      CREATE TABLE agreements (
        id text COLLATE "C" PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL,
        state text COLLATE "C" NOT NULL
      );

      CREATE TABLE payments (
        id text COLLATE "C" PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL
      );

      CREATE TABLE captures (
        id text COLLATE "C" PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL,
        parent_payment text COLLATE "C" NOT NULL,
        state text COLLATE "C" NOT NULL
      );

      CREATE TABLE refunds (
        id text COLLATE "C" PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL,
        capture_id text COLLATE "C" NOT NULL
      );
      CREATE INDEX refunds_capture_id ON refunds (capture_id, seq);

      CREATE TABLE decisions (
        id text COLLATE "C" PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        doc json NOT NULL,
        etag text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL
      );

      -- One row per call of an action; n is the call number of the record's id ({id}-H{n}). The
      -- primary key refuses a number another instance took (resource-operations renumbers).
      CREATE TABLE action_history (
        resource_id text COLLATE "C" NOT NULL,
        n integer NOT NULL,
        doc json NOT NULL,
        create_time timestamptz NOT NULL,
        action text COLLATE "C" NOT NULL,
        outcome text COLLATE "C" NOT NULL,
        PRIMARY KEY (resource_id, n)
      );
      CREATE INDEX action_history_create_time ON action_history (resource_id, create_time, n);
    `,
  },
  {
    version: 3,
    name: 'the seed, recorded once stored',
    // A row once the seed records are stored (stores.ts, `seedOnce`), so a later instance does
    // not store them again: a seed record a client deleted stays deleted. A schema an earlier
    // version seeded already holds the seeded payments (only ever seeded): recorded as seeded.
    sql: `
      CREATE TABLE seed_runs (
        name text COLLATE "C" PRIMARY KEY,
        seeded_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO seed_runs (name) SELECT 'payments-api' WHERE EXISTS (SELECT 1 FROM payments);
    `,
  },
  {
    version: 4,
    name: 'the create key of a row',
    // The key of the create that stored the row (create-keys.ts: the Service-Request-Id scoped
    // by the caller, with the request's fingerprint), NULL for a create without an id. UNIQUE:
    // a retry of a create the database applied after a 503 finds that row (pg-records.ts).
    sql: `
      ALTER TABLE cards ADD COLUMN create_key text COLLATE "C" UNIQUE;
      ALTER TABLE customers ADD COLUMN create_key text COLLATE "C" UNIQUE;
      ALTER TABLE webhooks ADD COLUMN create_key text COLLATE "C" UNIQUE;
      ALTER TABLE agreements ADD COLUMN create_key text COLLATE "C" UNIQUE;
      ALTER TABLE payments ADD COLUMN create_key text COLLATE "C" UNIQUE;
      ALTER TABLE captures ADD COLUMN create_key text COLLATE "C" UNIQUE;
      ALTER TABLE refunds ADD COLUMN create_key text COLLATE "C" UNIQUE;
      ALTER TABLE decisions ADD COLUMN create_key text COLLATE "C" UNIQUE;
    `,
  },
];
