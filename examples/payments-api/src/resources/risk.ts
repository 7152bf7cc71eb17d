/**
 * @module Risk: a resource-oriented complex operation (`POST /risk/decisions` records a
 * decision) and a transient one (`POST /risk/evaluate` keeps nothing).
 */
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { link } from '../links.js';
import type { MemoryCollection, StoredRecord } from '../memory-collection.js';
import { findOr404, sendCreated } from '../responses.js';

export const DecisionRequest = z.object({ code: z.string().min(1).max(100) });

export interface StoredDecision extends StoredRecord {
  code: string;
  status: 'APPROVED';
}

const decisionPath = (id: string) => `/v1/risk/decisions/${encodeURIComponent(id)}`;

function decisionRepresentation(req: Request, decision: StoredDecision) {
  return { ...decision, links: [link(req, decisionPath(decision.id), 'self')] };
}

export interface RiskRoutesOptions {
  router: Router;
  decisions: MemoryCollection<StoredDecision>;
  now: () => Date;
}

export function mountRisk({ router, decisions, now }: RiskRoutesOptions): void {
  router.post('/risk/decisions', (req: Request, res: Response) => {
    const { code } = DecisionRequest.parse(req.body);
    const time = now().toISOString();
    const decision = decisions.set({
      id: decisions.newId(),
      code,
      status: 'APPROVED',
      create_time: time,
      update_time: time,
    });
    sendCreated(req, res, decisionRepresentation(req, decision));
  });

  router.get('/risk/decisions/:id', (req: Request, res: Response) => {
    const decision = findOr404(decisions, String(req.params.id), 'decision', 'decision_id');
    res.json(decisionRepresentation(req, decision));
  });

  // Transient: keeps no state, creates nothing, answers 200 with the result.
  router.post('/risk/evaluate', (req: Request, res: Response) => {
    DecisionRequest.parse(req.body);
    res.status(200).json({ status: 'VALID' });
  });
}
