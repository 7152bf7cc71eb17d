/**
 * @module The targets of a resolver's refusal, named as GraphQL names the same fields. A REST
 * route's refusal names a body field from the body (`payer_id`, `amount.currency`); over GraphQL
 * the body is an argument (`input`, `criteria`), and the schema's own validation names its fields
 * under it (`input.payer_id`). A store or resolver refusing the same field after validation (a
 * string no store can keep, an amount past what is left) is re-rooted the same way, so that a
 * client finds one field under one name whichever check refused it.
 */

import type { JsonSchema } from '@resourceful/api-description';
import {
  ApiError,
  type ErrorDetail,
  isApiError,
  isZodError,
  toApiError,
} from '@resourceful/error-envelope';

/** The top-level name of a target: `billing_address` of `billing_address.city`, `lines` of `lines[0]`. */
function head(target: string): string {
  const end = target.search(/[.[]/);
  return end === -1 ? target : target.slice(0, end);
}

/**
 * `error` with every target that names a field of `body` (by its top-level name) prefixed with
 * `argument`; any other error, and any other target (a path parameter, a header), as it is.
 * With `notFoundTarget`, a 404 whose target names no field of the body names that argument
 * instead: a REST route names its own path parameter (`agreement_id`), while the GraphQL client
 * sent the id as `id`, the only other thing it sent.
 */
export function reRooted(
  error: unknown,
  argument: string,
  body: JsonSchema | undefined,
  notFoundTarget?: string,
): unknown {
  if (!isApiError(error) && !isZodError(error)) return error;
  const apiError = toApiError(error);
  const fields = (body?.properties as Readonly<Record<string, unknown>> | undefined) ?? {};
  const isBodyField = (target: string | undefined): target is string =>
    target !== undefined && target !== '' && Object.hasOwn(fields, head(target));
  const rename = (target: string | undefined) =>
    isBodyField(target) ? `${argument}.${target}` : target;
  const target =
    notFoundTarget !== undefined &&
    apiError.status === 404 &&
    apiError.target !== undefined &&
    !isBodyField(apiError.target)
      ? notFoundTarget
      : rename(apiError.target);
  const details = apiError.details.map((detail): ErrorDetail => {
    const renamed = rename(detail.target);
    return renamed === detail.target ? detail : { ...detail, target: renamed };
  });
  if (target === apiError.target && details.every((d, i) => d === apiError.details[i])) {
    return error;
  }
  return new ApiError({
    status: apiError.status,
    code: apiError.code,
    message: apiError.message,
    ...(target === undefined ? {} : { target }),
    details,
    ...(apiError.innererror === undefined ? {} : { innererror: apiError.innererror }),
    headers: apiError.headers,
    throttling: apiError.throttling,
    cause: error,
  });
}

/**
 * Runs a resolver that receives a body as `argument`, re-rooting the targets of what it throws
 * (see the module; `notFoundTarget` as `reRooted`'s). The resolver's answer passes through
 * untouched.
 */
export async function withBodyTargets<T>(
  argument: string,
  body: JsonSchema | undefined,
  run: () => T | Promise<T>,
  notFoundTarget?: string,
): Promise<T> {
  if (body === undefined && notFoundTarget === undefined) return run();
  try {
    return await run();
  } catch (error) {
    throw reRooted(error, argument, body, notFoundTarget);
  }
}
