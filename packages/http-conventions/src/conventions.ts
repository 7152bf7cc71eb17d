/**
 * @module The package's request middleware as one Express layer. Each layer an app mounts
 * costs a router dispatch per request (matching, parameter processing, a `next` round trip),
 * comparable to what the lighter of these middleware do themselves; one layer running the
 * parts in the documented mount order answers exactly as the five mounted one by one.
 */

import type { ServerResponse } from 'node:http';
import { shareShape } from '@resourceful/application-hooks';
import {
  type AllowedMethodsOptions,
  ANSWERED,
  allowedMethodsStep,
  type ExpressRequest,
} from './allowed-methods.js';
import { type LimitUrlLengthOptions, limitUrlLengthStep } from './long-urls.js';
import { checkOptions, optionError } from './options.js';
import { type QueryHeadersOptions, queryHeadersStep } from './query-headers.js';
import { type RequestIdOptions, requestIdStep } from './request-id.js';
import { type ResponseDateOptions, responseDateStep } from './response-date.js';

/**
 * Each part's options (as its own middleware takes them), or `false` to leave the part out.
 * Every part is on by default.
 */
export interface HttpConventionsOptions {
  /** `requestId()`'s options. @default {} */
  requestId?: RequestIdOptions | false;
  /** `responseDate()`'s options. @default {} */
  responseDate?: ResponseDateOptions | false;
  /** `limitUrlLength()`'s options. @default {} */
  limitUrlLength?: LimitUrlLengthOptions | false;
  /** `allowedMethods()`'s options. @default {} */
  allowedMethods?: AllowedMethodsOptions | false;
  /** `queryHeaders()`'s options. @default {} */
  queryHeaders?: QueryHeadersOptions | false;
}

type Next = (err?: unknown) => void;

const PARTS = [
  'requestId',
  'responseDate',
  'limitUrlLength',
  'allowedMethods',
  'queryHeaders',
] as const;

/** A part's options: `undefined` for its defaults, `false` for none. */
function partOptions<T extends object>(name: string, value: T | false | undefined): T | undefined {
  if (value === false) return undefined;
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw optionError('httpConventions', name, 'an options object or false', value);
  }
  return value;
}

/**
 * `requestId()`, `responseDate()`, `limitUrlLength()`, `allowedMethods()` and `queryHeaders()`
 * as one middleware, run in that order on each request, with each part's options checked as its
 * own factory checks them. Mount it where the five would go: at the top of the app, before the
 * routes (and at the top of each sub-app). An error (414, 405, 400) goes to `next(err)` and the
 * parts after it do not run; an OPTIONS that `allowedMethods` answers ends there.
 */
export function httpConventions(options: HttpConventionsOptions = {}) {
  const checked = checkOptions<HttpConventionsOptions>('httpConventions', options, PARTS);
  const requestIdOptions = partOptions('requestId', checked.requestId);
  const responseDateOptions = partOptions('responseDate', checked.responseDate);
  const limitUrlLengthOptions = partOptions('limitUrlLength', checked.limitUrlLength);
  const allowedMethodsOptions = partOptions('allowedMethods', checked.allowedMethods);
  const queryHeadersOptions = partOptions('queryHeaders', checked.queryHeaders);

  const assignRequestId = requestIdOptions && requestIdStep(requestIdOptions);
  const hookDate = responseDateOptions && responseDateStep(responseDateOptions);
  const checkUrlLength = limitUrlLengthOptions && limitUrlLengthStep(limitUrlLengthOptions);
  const checkAllowedMethods =
    allowedMethodsOptions &&
    allowedMethodsStep(allowedMethodsOptions, (handle) => handle === httpConventionsMiddleware);
  const takeQueryHeaders = queryHeadersOptions && queryHeadersStep(queryHeadersOptions);

  function httpConventionsMiddleware(req: ExpressRequest, res: ServerResponse, next: Next) {
    shareShape(req);
    shareShape(res);
    if (assignRequestId) assignRequestId(req, res);
    if (hookDate) hookDate(res);
    if (checkUrlLength) {
      const tooLong = checkUrlLength(req);
      if (tooLong !== undefined) {
        next(tooLong);
        return;
      }
    }
    if (checkAllowedMethods) {
      const outcome = checkAllowedMethods(req, res);
      if (outcome === ANSWERED) return;
      if (outcome !== undefined) {
        next(outcome);
        return;
      }
    }
    next(takeQueryHeaders ? takeQueryHeaders(req) : undefined);
  }

  return httpConventionsMiddleware;
}
