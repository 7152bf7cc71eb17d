/**
 * @module Answering a create, replace or update the way `Prefer: return=…` asks (RFC 7240 §4.2).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { assertOptionsObject, invalidOption, oneOfOption } from '@resourceful/option-checks';
import vary from 'vary';
import { getPreferences } from './get-preferences.js';
import { appendPreferenceApplied } from './header-values.js';

/**
 * The write operations of the spec's "Standard operations" table, and a sub-resource action that
 * changed its resource ("Complex operations": 200 with the resource).
 */
export type PreferredOperation = 'create' | 'replace' | 'update' | 'action';

export interface SendPreferredOptions {
  /**
   * `create` (POST, or PUT creating with a client id), `replace` (PUT), `update` (PATCH, or an
   * action that left its resource as it was: 204), or `action` (a sub-resource action that
   * changed its resource: 200 with it).
   */
  operation: PreferredOperation;
  /** The created or updated resource; sent when a representation is returned. */
  body: unknown;
}

const OPERATIONS: readonly PreferredOperation[] = ['create', 'replace', 'update', 'action'];
const OPERATION_NAMES = OPERATIONS.map((name) => `"${name}"`).join(' or ');

interface Answer {
  status: number;
  withBody: boolean;
}

/**
 * Spec defaults ("Standard operations"): create → 201 with the resource; replace and partial
 * update → 204 without body. `return=representation` turns 204 into 200 with the resource;
 * `return=minimal` drops the body of a 201. A sub-resource action that changed its resource
 * ("Complex operations") → 200 with it; `return=minimal` turns that into 204 (RFC 7240 §4.2: the
 * client wants no representation, and a 200 would carry an empty one).
 */
const ANSWERS: Record<
  PreferredOperation,
  Record<'default' | 'minimal' | 'representation', Answer>
> = {
  create: {
    default: { status: 201, withBody: true },
    minimal: { status: 201, withBody: false },
    representation: { status: 201, withBody: true },
  },
  replace: {
    default: { status: 204, withBody: false },
    minimal: { status: 204, withBody: false },
    representation: { status: 200, withBody: true },
  },
  update: {
    default: { status: 204, withBody: false },
    minimal: { status: 204, withBody: false },
    representation: { status: 200, withBody: true },
  },
  action: {
    default: { status: 200, withBody: true },
    minimal: { status: 204, withBody: false },
    representation: { status: 200, withBody: true },
  },
};

/**
 * Answers a create/replace/update/action honouring `return=minimal|representation`.
 * Sets `Preference-Applied: return=…` when a return preference was honoured; always adds
 * `Vary: Prefer` (merged, never overwritten). Other headers (ETag, Location) are the caller's
 * job, set before calling. Writes JSON with `Content-Type: application/json; charset=utf-8`.
 *
 * @example
 * res.location(`/v1/vault/credit-cards/${card.id}`);
 * sendPreferred(req, res, { operation: 'create', body: card });
 */
export function sendPreferred(
  req: IncomingMessage,
  res: ServerResponse,
  options: SendPreferredOptions,
): void {
  if (typeof options !== 'object' || options === null) {
    assertOptionsObject('sendPreferred', options);
  }
  const answers = Object.hasOwn(ANSWERS, options.operation)
    ? ANSWERS[options.operation]
    : undefined;
  if (answers === undefined) {
    // A programming error, not client input: the same TypeError, with a code, as a factory's
    // (oneOfOption adds "did you mean" for a misspelt name; it takes undefined as its default).
    if (options.operation !== undefined) {
      oneOfOption('sendPreferred', 'operation', options.operation, OPERATIONS, 'create');
    }
    invalidOption('sendPreferred', 'operation', OPERATION_NAMES, options.operation);
  }
  const preference = getPreferences(req).return;
  const answer = answers[preference ?? 'default'];
  vary(res, 'Prefer');
  if (preference !== undefined) appendPreferenceApplied(res, `return=${preference}`);
  res.statusCode = answer.status;
  if (!answer.withBody) {
    if (answer.status !== 204) res.setHeader('Content-Length', '0');
    res.end();
    return;
  }
  const json = JSON.stringify(options.body ?? null);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(req.method === 'HEAD' ? undefined : json);
}
