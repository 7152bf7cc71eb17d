/**
 * @module The operations of the served OpenAPI document as the hostile-request suites walk them:
 * each with a URL on seeded records, and a snapshot of everything a refused request could have
 * changed, read through the document's own GET operations.
 */
import type { Express } from 'express';
import request from 'supertest';
import { expect } from 'vitest';

// biome-ignore lint/suspicious/noExplicitAny: the tests walk the served JSON document
export type Json = Record<string, any>;

export const VERBS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Verb = (typeof VERBS)[number];

/** Links name this base, not the port each supertest request is sent to (snapshots compare). */
export const PUBLIC_BASE_URL = 'http://api.test';

/** The seeded records the documented paths' parameters stand for. */
export const SEEDED_IDS: Readonly<Record<string, string>> = {
  credit_card_id: 'CARD-SEED1',
  customer_id: 'CUST-SEED1',
  webhook_id: 'WH-SEED1',
  billing_agreement_id: 'AGREEMENT-SEED01',
  payment_id: 'PAY-SEED1',
  capture_id: 'CAPTURE-SEED2',
};

export interface DocumentedOperation {
  readonly verb: Verb;
  readonly path: string;
  readonly operation: Json;
}

export function operationsOf(document: Json): DocumentedOperation[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    VERBS.filter((verb) => verb in item).map((verb) => ({ verb, path, operation: item[verb] })),
  );
}

/**
 * The operation's URL on seeded records, with its required query parameters from their
 * examples; undefined for a path whose record the seed does not have (a refund, a decision).
 */
export function urlOf({ path, operation }: DocumentedOperation): string | undefined {
  let missing = false;
  const filled = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const id = SEEDED_IDS[name];
    if (id === undefined) missing = true;
    return id ?? '';
  });
  if (missing) return undefined;
  const query = new URLSearchParams();
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'query' && parameter.required === true) {
      query.set(parameter.name, String(parameter.example));
    }
  }
  return query.size > 0 ? `${filled}?${query}` : filled;
}

/** The documented operations with a URL on seeded records. */
export function reachableOperations(document: Json): (DocumentedOperation & { url: string })[] {
  return operationsOf(document).flatMap((documented) => {
    const url = urlOf(documented);
    return url === undefined ? [] : [{ ...documented, url }];
  });
}

/**
 * Everything a refused request could have changed: the answer of every documented GET on
 * seeded records (lists whole, records, their sub-collections, the computed summary).
 */
export async function snapshot(app: Express, document: Json): Promise<string> {
  const answers: string[] = [];
  for (const { verb, url, operation } of reachableOperations(document)) {
    if (verb !== 'get') continue;
    const paged = (operation.parameters ?? []).some(
      (parameter: Json) => parameter.$ref === '#/components/parameters/page_size',
    );
    const res = await request(app)
      .get(url)
      .query(paged ? { page_size: 100 } : {});
    expect(res.status, url).toBe(200);
    answers.push(`${url} ${JSON.stringify(res.body)}`);
  }
  return answers.join('\n');
}
