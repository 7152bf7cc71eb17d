/**
 * @module PATCH with a JSON Patch (RFC 6902) or a merge patch (RFC 7396): all or nothing,
 * read-only fields protected, preconditions evaluated before the write, upsert rules.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import { booleanOption, functionOption, positiveIntegerOption } from '@resourceful/option-checks';
import typeis from 'type-is';
import { applyParsedOperations } from './apply-json-patch.js';
import { jsonPatchMembers, mergePatchMembers } from './dropped-members.js';
import { JSON_MEDIA_TYPE, JSON_PATCH_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE } from './media-types.js';
import { applyMergePatch } from './merge-patch.js';
import { readJsonBody } from './read-body.js';
import { checkReadOnlyUnchanged } from './read-only.js';
import {
  RESOURCE_DEFAULTS,
  type ResourceRequest,
  type ResourceUpdateOptions,
  resolveResourceOptions,
} from './resource-options.js';
import { validateOperations } from './validate-operations.js';
import { checkJsonValue } from './value-checks.js';
import { answerWrite, writeUnderPreconditions } from './write-resource.js';

export interface JsonPatchUpdateOptions<T extends object> extends ResourceUpdateOptions<T> {
  /**
   * PATCH on a missing resource creates it (201 + `Location`). Without upsert it answers 409.
   * @default false
   */
  upsert?: boolean;
  /** The document a PATCH creating a resource (upsert) is applied to. @default () => ({}) */
  initial?: (id: string, req: ResourceRequest) => object;
  /** Accept `application/merge-patch+json` (RFC 7396) as well. @default true */
  mergePatch?: boolean;
  /** Most operations in one JSON Patch. @default 100 */
  maxOperations?: number;
}

type Next = (err?: unknown) => void;

type PatchKind = 'json-patch' | 'merge-patch';

/**
 * A merge patch that is not an object (`[1]`, `5`, `"x"`, `null`) replaces the whole target
 * (RFC 7396 §2: MergePatch returns it as is), and a resource is a JSON object, so it can never
 * apply. Said of the body, before anything is loaded, with PUT's code for the same mistake,
 * rather than as the read-only `id` the replacement would drop.
 */
function notAnObject(): ApiError {
  return ApiError.invalidRequest(
    'A merge patch body must be a JSON object: any other JSON value replaces the whole resource (RFC 7396 §2), and a resource is a JSON object.',
    { innererror: { code: 'BODY_NOT_AN_OBJECT' } },
  );
}

/**
 * The PATCH handler of a resource: `app.patch('/things/:id', jsonPatchUpdate({ load, save }))`.
 * Reads and validates the patch, then loads, checks `If-Match` / `If-None-Match`, applies and
 * saves under one lock per resource, and answers 204 (200 with `Prefer: return=representation`,
 * 201 on upsert) with the new `ETag`.
 */
export function jsonPatchUpdate<T extends object>(options: JsonPatchUpdateOptions<T>) {
  const factory = 'jsonPatchUpdate';
  const resolved = resolveResourceOptions(factory, options, [
    'upsert',
    'initial',
    'mergePatch',
    'maxOperations',
  ]);
  const upsert = booleanOption(factory, 'upsert', options.upsert, false);
  const mergePatch = booleanOption(factory, 'mergePatch', options.mergePatch, true);
  const initial = functionOption(factory, 'initial', options.initial) ?? (() => ({}));
  const maxOperations = positiveIntegerOption(
    factory,
    'maxOperations',
    options.maxOperations,
    RESOURCE_DEFAULTS.maxOperations,
  );
  const acceptPatch = mergePatch
    ? `${JSON_PATCH_MEDIA_TYPE}, ${MERGE_PATCH_MEDIA_TYPE}`
    : JSON_PATCH_MEDIA_TYPE;

  function unsupported(): ApiError {
    return ApiError.unsupportedMediaType(`PATCH bodies must be one of: ${acceptPatch}.`, {
      target: 'Content-Type',
      headers: { 'Accept-Patch': acceptPatch },
    });
  }

  const readable = mergePatch
    ? [JSON_PATCH_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE, JSON_MEDIA_TYPE]
    : [JSON_PATCH_MEDIA_TYPE, JSON_MEDIA_TYPE];

  function kindOf(req: ResourceRequest): PatchKind | 'json' {
    const type = typeis.is(req.headers['content-type'] ?? '', readable);
    if (type === JSON_PATCH_MEDIA_TYPE) return 'json-patch';
    if (type === MERGE_PATCH_MEDIA_TYPE) return 'merge-patch';
    if (type === JSON_MEDIA_TYPE) return 'json';
    throw unsupported();
  }

  async function handle(req: ResourceRequest, res: ServerResponse): Promise<void> {
    const declared = kindOf(req);
    const body = await readJsonBody(req, resolved.maxBodyBytes);
    // application/json is read as a JSON Patch only when it is one (an array).
    if (declared === 'json' && !Array.isArray(body)) throw unsupported();
    const kind: PatchKind = declared === 'json' ? 'json-patch' : declared;
    const operations =
      kind === 'json-patch'
        ? validateOperations(body, { maxOperations, maxDepth: resolved.maxDepth })
        : undefined;
    if (operations === undefined) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw notAnObject();
      // Before its members are listed: a listing's cost grows with the square of the depth.
      checkJsonValue(body, resolved.maxDepth, '');
    }
    const id = resolved.id(req);

    const outcome = await writeUnderPreconditions(
      resolved,
      req,
      id,
      upsert ? 'proceed' : 'conflict',
      (current) => {
        const base = current ?? initial(id, req);
        if (operations === undefined) {
          const result = applyMergePatch(base, body, { maxDepth: resolved.maxDepth });
          checkReadOnlyUnchanged(base, result, resolved.readOnly);
          return result;
        }
        return applyParsedOperations(base, operations, resolved.readOnly, {
          maxDepth: resolved.maxDepth,
          maxCopyBytes: resolved.maxBodyBytes,
        });
      },
      {
        members: operations === undefined ? mergePatchMembers(body) : jsonPatchMembers(operations),
        representationKnown: false,
      },
    );
    answerWrite(resolved, req, res, outcome, 'PATCH');
  }

  // Typed against node:http's request: a narrower `req` type here would make Express infer it
  // for every handler of the route, and `req.body` would turn into `unknown` after this one.
  return function jsonPatchUpdateMiddleware(req: IncomingMessage, res: ServerResponse, next: Next) {
    handle(req as ResourceRequest, res).then(undefined, (error: unknown) => next(error));
  };
}
