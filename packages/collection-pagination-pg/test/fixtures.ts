/**
 * @module The table every suite pages over: few distinct sort values and NULLs, so the unique
 * key decides most of the order.
 */
import type { Pool } from 'pg';

export interface Card {
  id: string;
  payer_id: string;
  state: string;
  expire_year: number;
  last_name: string | null;
  create_time: Date;
}

export const cards: Card[] = Array.from({ length: 120 }, (_, index) => ({
  id: `CARD-${String(index + 1).padStart(3, '0')}`,
  payer_id: `P-${index % 3}`,
  state: index % 4 === 0 ? 'expired' : 'ok',
  expire_year: 2025 + (index % 4),
  last_name: index % 5 === 0 ? null : ['Adams', 'Moss', 'Zed'][index % 3]!,
  create_time: new Date(Date.UTC(2024, 0, 1 + (index % 6))),
}));

export async function createCards(pool: Pool, table = 'cards'): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS ${table}`);
  await pool.query(
    `CREATE TABLE ${table} (
       id text PRIMARY KEY,
       payer_id text NOT NULL,
       state text NOT NULL,
       expire_year integer NOT NULL,
       last_name text,
       create_time timestamptz NOT NULL
     )`,
  );
  await pool.query(`CREATE INDEX ON ${table} (create_time, id)`);
  for (const card of cards) {
    await pool.query(`INSERT INTO ${table} VALUES ($1, $2, $3, $4, $5, $6)`, [
      card.id,
      card.payer_id,
      card.state,
      card.expire_year,
      card.last_name,
      card.create_time,
    ]);
  }
}

export const columns = {
  payer_id: 'payer_id',
  state: 'state',
  expire_year: 'expire_year',
  last_name: { column: 'last_name', nullable: true },
  create_time: 'create_time',
} as const;
