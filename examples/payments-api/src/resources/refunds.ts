/**
 * @module Payments, their captures (seeded; changed only by their refunds) and refunds, created
 * by the composite operation `POST /payments/captures/{capture_id}/refund`, and the refund
 * summary, a read-only computed resource.
 *
 * Refusals: malformed input is 400 (`VALIDATION_ERROR`, naming the field); a well-formed refund
 * that the capture's state forbids is 422 `UNPROCESSABLE_ENTITY` with one `innererror.code`
 * (`REFUND_CODES`), as PayPal's API answers its business-rule refusals.
 */
import { memoryDataSource, paginate } from '@resourceful/collection-pagination';
import { ApiError, asyncHandler } from '@resourceful/error-envelope';
import {
  type CompositeOperation,
  type ComputedResource,
  compositeOperation,
  computedResource,
} from '@resourceful/resource-operations';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { type Link, link } from '../links.js';
import type { ListDefaults } from '../lists.js';
import { AmountInput, CURRENCY_DIGITS, type Money, money, toMinor } from '../money.js';
import type { ListedRecordStore, RecordStore, StoredRecord } from '../record-store.js';
import { findRecordOr404 } from '../responses.js';
import type { Stores } from '../stores.js';

/**
 * The refund's body. Without `amount` (an empty object, or no body at all) the refund is of the
 * whole amount not yet refunded, as PayPal's capture refund is, and the spec's composite row says
 * no request body is needed.
 */
export const RefundCreate = z.object({ amount: AmountInput.optional() }).strict();

/** The `innererror.code` of each business-rule refusal of a refund (all 422). */
export const REFUND_CODES = {
  fullyRefunded: 'CAPTURE_FULLY_REFUNDED',
  currencyMismatch: 'CURRENCY_MISMATCH',
  notPositive: 'REFUND_AMOUNT_NOT_POSITIVE',
  exceedsCapture: 'REFUND_EXCEEDS_CAPTURE',
} as const;

export type CaptureState = 'completed' | 'partially_refunded' | 'refunded';

export interface StoredPayment extends StoredRecord {
  intent: 'sale';
  state: 'approved';
  amount: Money;
}

export interface StoredCapture extends StoredRecord {
  parent_payment: string;
  amount: Money;
  /** What its refunds add up to, in the capture's currency. */
  refunded_amount: Money;
  state: CaptureState;
}

export interface StoredRefund extends StoredRecord {
  state: 'completed';
  amount: Money;
  capture_id: string;
  parent_payment: string;
}

export function newCapture(
  id: string,
  parentPayment: string,
  amount: Money,
  time: string,
): StoredCapture {
  return {
    id,
    parent_payment: parentPayment,
    amount,
    refunded_amount: money(0n, amount.currency),
    state: 'completed',
    create_time: time,
    update_time: time,
  };
}

const paymentPath = (id: string) => `/v1/payments/payments/${encodeURIComponent(id)}`;
const capturePath = (id: string) => `/v1/payments/captures/${encodeURIComponent(id)}`;

function minorOf(amount: Money): bigint {
  return toMinor(amount.total, amount.currency) as bigint;
}

function remainingMinor(capture: StoredCapture): bigint {
  return minorOf(capture.amount) - minorOf(capture.refunded_amount);
}

export interface RefundRoutesOptions {
  router: Router;
  lists: ListDefaults;
  payments: RecordStore<StoredPayment>;
  captures: ListedRecordStore<StoredCapture>;
  refunds: ListedRecordStore<StoredRefund>;
  /** Keeps a refund and its capture's new refunded amount together (see `Stores`). */
  transaction: Stores['transaction'];
  now: () => Date;
}

/** What a refund without an amount refunds: all of the capture not yet refunded. */
function remainderOf(capture: StoredCapture): Money & { minor: bigint } {
  const minor = remainingMinor(capture);
  return { ...money(minor, capture.amount.currency), minor };
}

function refuse(message: string, code: string, target: string): ApiError {
  return ApiError.unprocessable(message, { target, innererror: { code } });
}

/** The refund's amount checked against the capture, under the capture's lock. */
function checkRefund(capture: StoredCapture, amount: Money & { minor: bigint }): void {
  if (capture.state === 'refunded') {
    throw refuse('The capture is fully refunded.', REFUND_CODES.fullyRefunded, 'capture_id');
  }
  if (amount.currency !== capture.amount.currency) {
    throw refuse(
      `The refund currency must be the capture's (${capture.amount.currency}).`,
      REFUND_CODES.currencyMismatch,
      'amount.currency',
    );
  }
  if (amount.minor <= 0n) {
    throw refuse(
      'The refund amount must be greater than zero.',
      REFUND_CODES.notPositive,
      'amount.total',
    );
  }
  if (amount.minor > remainingMinor(capture)) {
    throw refuse(
      'The refund exceeds the captured amount not yet refunded.',
      REFUND_CODES.exceedsCapture,
      'amount.total',
    );
  }
}

/** What the capture list accepts; the REST list and the API description both read it. */
export const CAPTURE_LIST = {
  sortable: ['create_time', 'update_time'],
  filterable: ['parent_payment', 'state'],
  timeSelectable: ['create_time', 'update_time'],
} as const;

/** What a capture's refunds list accepts. */
export const CAPTURE_REFUND_LIST = {
  sortable: ['create_time'],
  timeSelectable: ['create_time'],
} as const;

/** The refund composite operation: it creates refunds and represents them. */
export type RefundOperation = CompositeOperation<StoredCapture, StoredRefund>;

/** The capture as GET answers it; `refund` is offered only while something is left to refund. */
export function captureRepresentation(
  req: Request,
  capture: StoredCapture,
  refund: RefundOperation,
) {
  const path = capturePath(capture.id);
  const links: Link[] = [
    link(req, path, 'self'),
    link(req, paymentPath(capture.parent_payment), 'parent_payment'),
    link(req, `${path}/refunds`, 'refunds'),
    ...refund.links(req, capture),
  ];
  return {
    ...capture,
    remaining_amount: money(remainingMinor(capture), capture.amount.currency),
    links,
  };
}

export function paymentRepresentation(req: Request, payment: StoredPayment) {
  const path = paymentPath(payment.id);
  return {
    ...payment,
    links: [
      link(req, path, 'self'),
      link(
        req,
        `/v1/payments/captures?parent_payment=${encodeURIComponent(payment.id)}`,
        'captures',
      ),
    ],
  };
}

/** The refunds of one capture, oldest first. */
export async function refundsOfCapture(
  refunds: ListedRecordStore<StoredRefund>,
  capture: StoredCapture,
): Promise<readonly StoredRefund[]> {
  return refunds.where('capture_id', capture.id);
}

/** Declares the refund operations and mounts the plain reads; returns the declarations. */
export function mountRefunds(options: RefundRoutesOptions): [RefundOperation, ComputedResource] {
  const { router, lists, payments, captures, refunds, transaction, now } = options;
  const publicBaseUrl = lists.publicBaseUrl;
  const linkBase = publicBaseUrl === undefined ? {} : { publicBaseUrl };

  const refund: RefundOperation = compositeOperation({
    ...linkBase,
    resource: '/payments/captures/:capture_id',
    name: 'refund',
    load: (id) => captures.get(id),
    notFound: { message: 'The capture does not exist.', target: 'capture_id' },
    representSource: (capture, req) => captureRepresentation(req as Request, capture, refund),
    available: (capture) => remainingMinor(capture) > 0n,
    body: RefundCreate,
    // In memory the process's lock keeps refunds of one capture apart; in PostgreSQL the
    // capture's compare-and-set below, across instances.
    compareAndSet: captures.compareAndSet,
    create: async ({ source: capture, body, now: time }) => {
      // The remainder is read from the capture as loaded under its lock (or compare-and-set):
      // two bodiless refunds at once refund it once, and the second meets CAPTURE_FULLY_REFUNDED.
      const amount = body.amount ?? remainderOf(capture);
      checkRefund(capture, amount);
      const stamp = time.toISOString();
      const refunded = minorOf(capture.refunded_amount) + amount.minor;
      const total = minorOf(capture.amount);
      // Saved over the version checked: a refund on another instance that got there first
      // makes this one run again and meet the rule against its result. The capture's new
      // amount and the refund row are kept together or not at all.
      return transaction(async () => {
        await captures.save(
          {
            ...capture,
            refunded_amount: money(refunded, capture.amount.currency),
            state: refunded === total ? 'refunded' : 'partially_refunded',
            update_time: stamp,
          },
          capture,
        );
        return refunds.insert({
          id: refunds.newId(),
          state: 'completed',
          amount: { total: amount.total, currency: amount.currency },
          capture_id: capture.id,
          parent_payment: capture.parent_payment,
          create_time: stamp,
          update_time: stamp,
        });
      });
    },
    created: {
      path: '/payments/refunds',
      load: (id) => refunds.get(id),
      notFound: { message: 'The refund does not exist.', target: 'refund_id' },
    },
    represent: (record) => ({ ...record }),
    related: (record) => [
      {
        rel: 'parent_payment',
        path: `/payments/payments/${encodeURIComponent(record.parent_payment)}`,
      },
      { rel: 'capture', path: `/payments/captures/${encodeURIComponent(record.capture_id)}` },
    ],
    now,
  });

  router.get(
    '/payments/captures',
    paginate({
      ...lists,
      source: async () => memoryDataSource(await captures.all()),
      ...CAPTURE_LIST,
      summary: (capture, req) => captureRepresentation(req as Request, capture, refund),
    }),
  );

  router.get(
    '/payments/captures/:id',
    asyncHandler(async (req: Request, res: Response) => {
      const capture = await findRecordOr404(
        captures,
        String(req.params.id),
        'capture',
        'capture_id',
      );
      res.json(captureRepresentation(req, capture, refund));
    }),
  );

  // The refunds of one capture, oldest first, paged like any list.
  router.get(
    '/payments/captures/:id/refunds',
    paginate({
      ...lists,
      source: async (req) => {
        const id = String((req as Request).params.id);
        const capture = await findRecordOr404(captures, id, 'capture', 'capture_id');
        return memoryDataSource(await refundsOfCapture(refunds, capture));
      },
      ...CAPTURE_REFUND_LIST,
      summary: (record, req) => refund.representation(req as Request, record),
    }),
  );

  router.get(
    '/payments/payments/:id',
    asyncHandler(async (req: Request, res: Response) => {
      const payment = await findRecordOr404(
        payments,
        String(req.params.id),
        'payment',
        'payment_id',
      );
      res.json(paymentRepresentation(req, payment));
    }),
  );

  const summary = computedResource({
    path: '/payments/refund-summary',
    parameters: ['currency', 'start_time', 'end_time'],
    allowedParameters: lists.allowedParameters ?? [],
    query: RefundSummaryQuery,
    compute: async ({ query }) => refundSummary(await captures.all(), await refunds.all(), query),
  });

  return [refund, summary];
}

const timestamp = z.iso.datetime({ offset: true });

/** `GET /v1/payments/refund-summary?currency=USD&start_time=…&end_time=…` */
export const RefundSummaryQuery = z
  .object({
    currency: z
      .string()
      .refine((code) => Object.hasOwn(CURRENCY_DIGITS, code), 'must be a supported currency'),
    start_time: timestamp.optional(),
    end_time: timestamp.optional(),
  })
  .refine(
    (query) =>
      query.start_time === undefined ||
      query.end_time === undefined ||
      Date.parse(query.start_time) <= Date.parse(query.end_time),
    { message: 'must not be before start_time', path: ['end_time'] },
  );

/**
 * Totals of the captures of one currency created in [start_time, end_time], and of their
 * refunds: computed on every read, never stored.
 */
export function refundSummary(
  allCaptures: readonly StoredCapture[],
  allRefunds: readonly StoredRefund[],
  query: z.infer<typeof RefundSummaryQuery>,
) {
  const from = query.start_time === undefined ? -Infinity : Date.parse(query.start_time);
  const to = query.end_time === undefined ? Infinity : Date.parse(query.end_time);
  const selected = allCaptures.filter((capture) => {
    const created = Date.parse(capture.create_time);
    return capture.amount.currency === query.currency && created >= from && created <= to;
  });
  const ids = new Set(selected.map((capture) => capture.id));
  let captured = 0n;
  let refunded = 0n;
  for (const capture of selected) {
    captured += minorOf(capture.amount);
    refunded += minorOf(capture.refunded_amount);
  }
  return {
    currency: query.currency,
    ...(query.start_time === undefined ? {} : { start_time: query.start_time }),
    ...(query.end_time === undefined ? {} : { end_time: query.end_time }),
    capture_count: selected.length,
    refund_count: allRefunds.filter((record) => ids.has(record.capture_id)).length,
    captured_amount: money(captured, query.currency),
    refunded_amount: money(refunded, query.currency),
    remaining_amount: money(captured - refunded, query.currency),
  };
}
