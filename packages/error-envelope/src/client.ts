/**
 * @module Reading error responses on the client side. Per the spec's client rules: unknown
 * fields are ignored, key order does not matter, and a body that is no envelope yields nothing.
 */
import type { ErrorDetail, InnerError } from './api-error.js';

export interface ParsedError {
  code: string;
  message: string;
  target?: string;
  details: ErrorDetail[];
  innererror?: InnerError;
}

export interface ParsedErrorResponse extends ParsedError {
  status: number;
}

/** A fetch `Response`, or anything with the same few members. */
export interface ResponseLike {
  status: number;
  text(): Promise<string>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readDetail(value: unknown): ErrorDetail | undefined {
  if (!isObject(value) || typeof value.code !== 'string' || typeof value.message !== 'string') {
    return undefined;
  }
  const detail: ErrorDetail = { code: value.code, message: value.message };
  if (typeof value.target === 'string') detail.target = value.target;
  return detail;
}

/**
 * Reads an error envelope from a parsed body or its JSON text.
 * @returns the error, or undefined when the input is not an envelope
 */
export function parseErrorBody(input: unknown): ParsedError | undefined {
  let body = input;
  if (typeof input === 'string') {
    try {
      body = JSON.parse(input);
    } catch {
      return undefined;
    }
  }
  if (!isObject(body) || !isObject(body.error)) return undefined;
  const { code, message, target, details, innererror } = body.error;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  const parsed: ParsedError = {
    code,
    message,
    details: Array.isArray(details)
      ? details.map(readDetail).filter((detail) => detail !== undefined)
      : [],
  };
  if (typeof target === 'string') parsed.target = target;
  if (isObject(innererror)) parsed.innererror = innererror as InnerError;
  return parsed;
}

/** Reads the error of a failed fetch response; undefined for a success or a non-envelope body. */
export async function readErrorResponse(
  response: ResponseLike,
): Promise<ParsedErrorResponse | undefined> {
  if (response.status < 400) return undefined;
  const parsed = parseErrorBody(await response.text());
  return parsed === undefined ? undefined : { status: response.status, ...parsed };
}
