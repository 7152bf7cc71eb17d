/**
 * @module The optional JSON body of an operation, validated before anything is loaded or
 * changed, so a bad body leaves the server as it was.
 */
import { ApiError } from '@resourceful/error-envelope';
import { checkJsonBody } from '@resourceful/json-patch-update';
import { type StandardSchemaV1, validate } from './standard-schema.js';
import type { OperationRequest } from './types.js';

/** True for "no body": Express 5 leaves `req.body` undefined, Express 4's parser sets `{}`. */
function isEmpty(body: unknown): boolean {
  return (
    body === undefined ||
    (typeof body === 'object' &&
      body !== null &&
      !Array.isArray(body) &&
      Object.keys(body).length === 0)
  );
}

/**
 * Whether the request carries content that no body parser read: a `Content-Length` above 0 or a
 * chunked body (RFC 9112 §6.3) whose stream has not ended. `express.json()` reads
 * `application/json` only and leaves any other media type unread (Express 4 still sets
 * `req.body` to `{}`, Express 5 leaves it undefined), so without this check such a body would
 * pass as "no body" and the operation would run on `{}`.
 */
function hasUnreadContent(req: OperationRequest): boolean {
  const length = req.headers['content-length'];
  const hasContent =
    req.headers['transfer-encoding'] !== undefined ||
    (length !== undefined && /^\d+$/.test(length) && Number(length) > 0);
  return hasContent && req.readableEnded === false;
}

/**
 * The validated body. A body no parser read (another media type than the JSON `express.json()`
 * parses) is refused before anything else: a 400 `BODY_NOT_ACCEPTED` for an operation without a
 * schema, else a 415 `UNSUPPORTED_MEDIA_TYPE` naming `Content-Type`, so a client never sees its
 * body ignored and the operation run on `{}`. Then the checks json-patch-update makes on PUT and PATCH bodies, so every
 * write refuses the same bodies: nesting deeper than 32 levels (`TOO_DEEP`) and a `__proto__`,
 * `constructor` or `prototype` key (`FORBIDDEN_KEY`), which a schema that strips unknown keys
 * would otherwise drop silently. An operation without a schema takes no body: anything but an
 * empty one is a 400 (`innererror.code` `BODY_NOT_ACCEPTED`) rather than silently ignored. With
 * a schema, a missing body is validated as `{}`, so a schema of optional fields makes the body
 * optional.
 */
export async function readBody<B>(
  schema: StandardSchemaV1<unknown, B> | undefined,
  req: OperationRequest,
): Promise<B> {
  const unread = hasUnreadContent(req);
  if (unread && schema !== undefined) {
    throw ApiError.unsupportedMediaType('The request body must be application/json.', {
      target: 'Content-Type',
      // RFC 9110 §15.5.16: tell the client which media type the resource accepts.
      headers: { 'Accept-Post': 'application/json' },
    });
  }
  const body = req.body;
  checkJsonBody(body);
  if (schema === undefined) {
    if (unread || !isEmpty(body)) {
      throw ApiError.invalidRequest('This operation takes no request body.', {
        innererror: { code: 'BODY_NOT_ACCEPTED' },
      });
    }
    return {} as B;
  }
  return validate(schema, body === undefined ? {} : body);
}
