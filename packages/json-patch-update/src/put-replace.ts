/**
 * @module PUT replace: the body is the whole resource; properties not sent are cleared,
 * computed and read-only fields may be left out (they keep their values) but not changed.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import { booleanOption } from '@resourceful/option-checks';
import typeis from 'type-is';
import { bodyMembers } from './dropped-members.js';
import { valueAt } from './json-pointer.js';
import { JSON_MEDIA_TYPE } from './media-types.js';
import { readJsonBody } from './read-body.js';
import { checkReadOnlyUnchanged, type ReadOnlyField } from './read-only.js';
import {
  type ResourceRequest,
  type ResourceUpdateOptions,
  resolveResourceOptions,
} from './resource-options.js';
import { checkJsonValue, cloneJson } from './value-checks.js';
import { answerWrite, writeUnderPreconditions } from './write-resource.js';

export interface PutReplaceOptions<T extends object> extends ResourceUpdateOptions<T> {
  /**
   * PUT on a missing id creates the resource with that id (201 + `Location`): the resource
   * accepts client-chosen ids. Otherwise a missing id answers 404.
   * @default false
   */
  allowCreate?: boolean;
}

type Next = (err?: unknown) => void;

/** Sets a value, creating missing parent objects; leaves a non-object parent the client sent. */
function setCreatingParents(
  root: Record<string, unknown>,
  segments: readonly string[],
  value: unknown,
): void {
  let node = root;
  for (const segment of segments.slice(0, -1)) {
    if (node[segment] === undefined) node[segment] = {};
    const child = node[segment];
    // The client's own value stays; the read-only check then refuses the change.
    if (typeof child !== 'object' || child === null || Array.isArray(child)) return;
    node = child as Record<string, unknown>;
  }
  node[segments[segments.length - 1]!] = value;
}

/** Copies read-only values the body left out from the stored resource. */
function keepOmitted(
  body: Record<string, unknown>,
  stored: unknown,
  fields: readonly ReadOnlyField[],
): void {
  for (const field of fields) {
    if (valueAt(body, field.segments).found) continue;
    const kept = valueAt(stored, field.segments);
    if (kept.found) setCreatingParents(body, field.segments, cloneJson(kept.value));
  }
}

/**
 * The PUT handler of a resource: `app.put('/things/:id', putReplace({ load, save }))`.
 * 204 on replace (200 with `Prefer: return=representation`), 201 + `Location` when it creates
 * (with `allowCreate`), 400 `READ_ONLY_FIELD` when a read-only field differs from the stored one.
 */
export function putReplace<T extends object>(options: PutReplaceOptions<T>) {
  const resolved = resolveResourceOptions('putReplace', options, ['allowCreate']);
  const allowCreate = booleanOption('putReplace', 'allowCreate', options.allowCreate, false);
  const computed = new Set(['id', 'create_time', 'update_time']);

  async function handle(req: ResourceRequest, res: ServerResponse): Promise<void> {
    if (typeis.is(req.headers['content-type'] ?? '', [JSON_MEDIA_TYPE]) === false) {
      throw ApiError.unsupportedMediaType('PUT bodies must be application/json.', {
        target: 'Content-Type',
      });
    }
    const body = await readJsonBody(req, resolved.maxBodyBytes);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw ApiError.invalidRequest('A PUT body must be a JSON object: the whole resource.', {
        innererror: { code: 'BODY_NOT_AN_OBJECT' },
      });
    }
    checkJsonValue(body, resolved.maxDepth, '');
    const id = resolved.id(req);
    const sent = body as Record<string, unknown>;
    if (Object.hasOwn(sent, 'id') && sent.id !== id) {
      throw ApiError.readOnlyField('id', 'The "id" in the body differs from the id in the path.');
    }

    const outcome = await writeUnderPreconditions(
      resolved,
      req,
      id,
      allowCreate ? 'proceed' : 'not-found',
      (current) => {
        const next = cloneJson(sent);
        if (current === undefined) {
          // A create: the service sets the computed fields; what the client sent for them is ignored.
          for (const name of computed) delete next[name];
        } else {
          keepOmitted(next, current, resolved.readOnly);
          checkReadOnlyUnchanged(current, next, resolved.readOnly);
        }
        return next;
      },
      { members: bodyMembers(sent), representationKnown: true },
    );
    answerWrite(resolved, req, res, outcome, 'PUT');
  }

  // Typed against node:http's request: a narrower `req` type here would make Express infer it
  // for every handler of the route, and `req.body` would turn into `unknown` after this one.
  return function putReplaceMiddleware(req: IncomingMessage, res: ServerResponse, next: Next) {
    handle(req as ResourceRequest, res).then(undefined, (error: unknown) => next(error));
  };
}
