/**
 * @module Captures (seeded, read-only) and refunds, created by the composite operation
 * `POST /payments/captures/{capture_id}/refund`.
 */

import { memoryDataSource, paginate } from '@resourceful/collection-pagination';
import { ApiError } from '@resourceful/error-envelope';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { type Link, link } from '../links.js';
import type { ListDefaults } from '../lists.js';
import type { MemoryCollection, StoredRecord } from '../memory-collection.js';
import { findOr404, sendCreated } from '../responses.js';

export const Amount = z.object({
  total: z.string().regex(/^\d{1,10}(\.\d{1,2})?$/, 'must be a decimal amount like "10.00"'),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code'),
});

export const RefundCreate = z.object({ amount: Amount });

export type AmountValue = z.infer<typeof Amount>;

export interface StoredCapture extends StoredRecord {
  parent_payment: string;
  amount: AmountValue;
  state: 'completed';
}

export interface StoredRefund extends StoredRecord {
  state: 'completed';
  amount: AmountValue;
  capture_id: string;
  parent_payment: string;
}

const capturePath = (id: string) => `/v1/payments/captures/${encodeURIComponent(id)}`;
const refundPath = (id: string) => `/v1/payments/refunds/${encodeURIComponent(id)}`;

function captureRepresentation(req: Request, capture: StoredCapture) {
  const links: Link[] = [
    link(req, capturePath(capture.id), 'self'),
    link(req, `${capturePath(capture.id)}/refund`, 'refund', 'POST'),
  ];
  return { ...capture, links };
}

function refundRepresentation(req: Request, refund: StoredRefund) {
  const links: Link[] = [
    link(req, refundPath(refund.id), 'self'),
    link(req, capturePath(refund.capture_id), 'capture'),
  ];
  return { ...refund, links };
}

const cents = (total: string) => Math.round(Number(total) * 100);

export interface RefundRoutesOptions {
  router: Router;
  lists: ListDefaults;
  captures: MemoryCollection<StoredCapture>;
  refunds: MemoryCollection<StoredRefund>;
  now: () => Date;
}

export function mountRefunds({ router, lists, captures, refunds, now }: RefundRoutesOptions): void {
  router.get(
    '/payments/captures',
    paginate({
      ...lists,
      source: memoryDataSource(() => captures.all()),
      sortable: ['create_time'],
      filterable: ['parent_payment', 'state'],
      summary: (capture, req) => captureRepresentation(req as Request, capture),
    }),
  );

  router.get('/payments/captures/:id', (req: Request, res: Response) => {
    const capture = findOr404(captures, String(req.params.id), 'capture', 'capture_id');
    res.json(captureRepresentation(req, capture));
  });

  // A composite operation: it creates a refund tied to the capture and its payment. The spec
  // leaves the status open; 201 with Location, as for any other create.
  router.post('/payments/captures/:id/refund', (req: Request, res: Response) => {
    const capture = findOr404(captures, String(req.params.id), 'capture', 'capture_id');
    const { amount } = RefundCreate.parse(req.body);
    if (amount.currency !== capture.amount.currency) {
      throw ApiError.invalidRequest('The refund currency must match the capture.', {
        target: 'amount.currency',
      });
    }
    const refunded = refunds
      .all()
      .filter((refund) => refund.capture_id === capture.id)
      .reduce((sum, refund) => sum + cents(refund.amount.total), 0);
    if (refunded + cents(amount.total) > cents(capture.amount.total)) {
      throw ApiError.unprocessable('The refund exceeds the captured amount not yet refunded.', {
        target: 'amount.total',
        innererror: { code: 'REFUND_EXCEEDS_CAPTURE' },
      });
    }
    const time = now().toISOString();
    const refund = refunds.set({
      id: refunds.newId(),
      state: 'completed',
      amount,
      capture_id: capture.id,
      parent_payment: capture.parent_payment,
      create_time: time,
      update_time: time,
    });
    sendCreated(req, res, refundRepresentation(req, refund));
  });

  router.get('/payments/refunds/:id', (req: Request, res: Response) => {
    const refund = findOr404(refunds, String(req.params.id), 'refund', 'refund_id');
    res.json(refundRepresentation(req, refund));
  });
}
