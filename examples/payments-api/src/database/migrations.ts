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
];
