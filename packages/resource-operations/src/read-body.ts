/**
 * @module The optional JSON body of an operation, validated before anything is loaded or
 * changed, so a bad body leaves the server as it was.
 */
import { ApiError } from '@resourceful/error-envelope';
import { checkJsonBody } from '@resourceful/json-patch-update';
import { type StandardSchemaV1, validate } from './standard-schema.js';

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
 * The validated body. First the checks json-patch-update makes on PUT and PATCH bodies, so every
 * write refuses the same bodies: nesting deeper than 32 levels (`TOO_DEEP`) and a `__proto__`,
 * `constructor` or `prototype` key (`FORBIDDEN_KEY`), which a schema that strips unknown keys
 * would otherwise drop silently. An operation without a schema takes no body: anything but an
 * empty one is a 400 (`innererror.code` `BODY_NOT_ACCEPTED`) rather than silently ignored. With
 * a schema, a missing body is validated as `{}`, so a schema of optional fields makes the body
 * optional.
 */
export async function readBody<B>(
  schema: StandardSchemaV1<unknown, B> | undefined,
  body: unknown,
): Promise<B> {
  checkJsonBody(body);
  if (schema === undefined) {
    if (!isEmpty(body)) {
      throw ApiError.invalidRequest('This operation takes no request body.', {
        innererror: { code: 'BODY_NOT_ACCEPTED' },
      });
    }
    return {} as B;
  }
  return validate(schema, body === undefined ? {} : body);
}
