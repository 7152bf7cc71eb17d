/**
 * @module The steps after a patch or replacement is computed and before the answer: service-set
 * fields, schema validation, save, and the answer with `ETag`, `Location` and `Prefer` honoured.
 */

import type { ServerResponse } from 'node:http';
import { conditionalWrite } from '@resourceful/conditional-requests';
import { ApiError } from '@resourceful/error-envelope';
import { getPreferences, sendPreferred } from '@resourceful/prefer-header';
import { checkNoMemberDropped } from './dropped-members.js';
import type { ResolvedResource, ResourceRequest } from './resource-options.js';
import { validateWithSchema } from './schema.js';
import { cloneJson, jsonEqual } from './value-checks.js';

/** The members a write sets, each of which must survive the schema. */
export interface MemberCheck {
  members: readonly (readonly string[])[];
  /** A PUT may send back what GET sent: members of the representation count as known. */
  representationKnown: boolean;
}

export interface WriteOutcome<T> {
  resource: T;
  created: boolean;
}

/**
 * Loads the resource, checks the preconditions, computes the new document with `change` and
 * saves it, all under the resource's lock, so that check and write happen together.
 */
export function writeUnderPreconditions<T extends object>(
  resolved: ResolvedResource<T>,
  req: ResourceRequest,
  id: string,
  ifMissing: 'proceed' | 'not-found' | 'conflict',
  change: (current: T | undefined) => unknown,
  memberCheck?: MemberCheck,
): Promise<WriteOutcome<T>> {
  return conditionalWrite(req, {
    // One lock per resource identity, whatever URL spelling or route reached it.
    identity: id,
    ...(resolved.compareAndSet ? { compareAndSet: true } : { lock: resolved.lock }),
    load: () => resolved.load(id, req),
    etag: (resource) => resolved.etag(resource, req),
    ifMissing,
    requireIfMatch: resolved.requireIfMatch,
    write: async (current) =>
      completeAndSave(resolved, req, id, change(current), current, memberCheck),
  });
}

/**
 * Sets `id` and the times, validates with the schema and saves. A result equal to the stored
 * resource (an empty patch, a value set to what it was) is not saved: `update_time` and the
 * entity tag stay, so other clients' `If-Match` still holds. Each member in `memberCheck`
 * must survive the schema: one it strips is a 400 rather than a success that stored nothing.
 * @throws ApiError 400 when the result is not an object, fails the schema, or loses a member
 *   the patch set
 */
export async function completeAndSave<T extends object>(
  resolved: ResolvedResource<T>,
  req: ResourceRequest,
  id: string,
  result: unknown,
  previous: T | undefined,
  memberCheck?: MemberCheck,
): Promise<WriteOutcome<T>> {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw ApiError.invalidRequest('The resulting resource must be a JSON object.', {
      innererror: { code: 'RESOURCE_NOT_AN_OBJECT' },
    });
  }
  const created = previous === undefined;
  const candidate: Record<string, unknown> = { ...result, id };
  const before = previous as Record<string, unknown> | undefined;
  if (resolved.timestamps) {
    const now = resolved.now().toISOString();
    candidate.create_time =
      created || before?.create_time === undefined ? now : jsonFormOf(before.create_time);
    candidate.update_time = now;
  }
  const resource = resolved.schema
    ? await validateWithSchema(resolved.schema, candidate)
    : (candidate as T);
  if (memberCheck !== undefined) {
    const { members, representationKnown } = memberCheck;
    const known = representationKnown ? resolved.represent(resource, req) : undefined;
    checkNoMemberDropped(candidate, resource, members, known);
  }
  // Compared after the schema, so a field it strips or a default it fills is no change either.
  if (before !== undefined && unchanged(resource, before, resolved.timestamps)) {
    return { resource: previous as T, created: false };
  }
  await resolved.save(resource, {
    id,
    created,
    previous,
    previousETag: previous === undefined ? undefined : resolved.etag(previous, req),
    req,
  });
  return { resource, created };
}

/**
 * A stored value in the form GET sends and the rest of the candidate has (it was built from a
 * JSON copy of the stored resource): a `Date` a store hands back (pg reads a timestamptz so) is
 * its ISO string, which a schema that accepts the `create_time` of a create accepts too.
 */
function jsonFormOf(value: unknown): unknown {
  return typeof value === 'string' ? value : cloneJson(value);
}

/** Whether the new resource equals the stored one, apart from the `update_time` just set. */
function unchanged(
  resource: object,
  stored: Record<string, unknown>,
  timestamps: boolean,
): boolean {
  if (!timestamps) return jsonEqual(resource, stored);
  const { update_time: _new, ...rest } = resource as Record<string, unknown>;
  const { update_time: _old, ...storedRest } = stored;
  return jsonEqual(rest, storedRest);
}

/**
 * Answers a successful write: 201 + `Location` on create, else 204 (or 200 with
 * `Prefer: return=representation`). PATCH answers always carry the new `ETag`; PUT answers only
 * when they carry the representation (RFC 9110 §9.3.4: the stored resource is not the sent one).
 */
export function answerWrite<T extends object>(
  resolved: ResolvedResource<T>,
  req: ResourceRequest,
  res: ServerResponse,
  outcome: WriteOutcome<T>,
  method: 'PATCH' | 'PUT',
): void {
  const operation = outcome.created ? 'create' : method === 'PATCH' ? 'update' : 'replace';
  const preference = getPreferences(req).return;
  const withBody =
    operation === 'create' ? preference !== 'minimal' : preference === 'representation';
  if (method === 'PATCH' || withBody) res.setHeader('ETag', resolved.etag(outcome.resource, req));
  if (outcome.created) res.setHeader('Location', resolved.location(outcome.resource, req));
  sendPreferred(req, res, { operation, body: resolved.represent(outcome.resource, req) });
}
