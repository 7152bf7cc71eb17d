/**
 * @module Risk: a resource-oriented complex operation (`POST /risk/decisions` records a
 * decision, 201, readable at `GET /risk/decisions/{id}`) and a transient one
 * (`POST /risk/evaluate` keeps nothing, 200).
 */
import {
  type ResourceOrientedOperation,
  resourceOrientedOperation,
  type TransientOperation,
  transientOperation,
} from '@resourceful/resource-operations';
import { z } from 'zod';
import type { ListDefaults } from '../lists.js';
import type { RecordStore, StoredRecord } from '../record-store.js';

export const DecisionRequest = z.object({ code: z.string().min(1).max(100) }).strict();

export interface StoredDecision extends StoredRecord {
  code: string;
  status: 'APPROVED';
}

export interface RiskRoutesOptions {
  lists: ListDefaults;
  decisions: RecordStore<StoredDecision>;
  now: () => Date;
}

/** Decides on a code and keeps the decision (REST's POST and GraphQL's mutation alike). */
export function recordDecision(
  decisions: RecordStore<StoredDecision>,
  request: z.infer<typeof DecisionRequest>,
  time: Date,
): StoredDecision | Promise<StoredDecision> {
  const stamp = time.toISOString();
  return decisions.insert({
    id: decisions.newId(),
    code: request.code,
    status: 'APPROVED',
    create_time: stamp,
    update_time: stamp,
  });
}

/** The transient evaluation: computed from the request alone, nothing kept. */
export function evaluation(_request: z.infer<typeof DecisionRequest>) {
  return { status: 'VALID' as const };
}

export function riskOperations({
  lists,
  decisions,
  now,
}: RiskRoutesOptions): [ResourceOrientedOperation<StoredDecision>, TransientOperation] {
  const linkBase = lists.publicBaseUrl === undefined ? {} : { publicBaseUrl: lists.publicBaseUrl };
  const decide = resourceOrientedOperation({
    ...linkBase,
    path: '/risk/decisions',
    body: DecisionRequest,
    create: ({ body, now: time }) => recordDecision(decisions, body, time),
    load: (id) => decisions.get(id),
    notFound: { message: 'The decision does not exist.', target: 'decision_id' },
    represent: (decision) => ({ ...decision }),
    now,
  });
  const evaluate = transientOperation({
    path: '/risk/evaluate',
    body: DecisionRequest,
    compute: ({ body }) => evaluation(body),
  });
  return [decide, evaluate];
}
