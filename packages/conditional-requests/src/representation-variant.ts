/**
 * @module How a middleware that changes the representation (another format, charset or content
 * coding) tells `conditionalRequests()` which variant an answer will be, so that the tag it
 * sends and compares names that representation (RFC 9110 §8.8.3).
 */
import type { ServerResponse } from 'node:http';

/**
 * Names the variant a response will be sent as, at the moment its tag is set: for instance
 * `['xml']`, `['latin1', 'gzip']`, or `[]` for identity-coded UTF-8 JSON. `bodyLength` is the
 * size in bytes of the body about to be sent, when known. `bodiless` is true for an answer
 * without content (a write's 204) whose tag names the representation a GET would select.
 */
export type RepresentationVariant = (
  res: ServerResponse,
  bodyLength: number | undefined,
  bodiless: boolean,
) => readonly string[];

const VARIANT = Symbol.for('@resourceful/conditional-requests.representation-variant');

type Marked = ServerResponse & { [VARIANT]?: RepresentationVariant };

/**
 * The responses `conditionalRequests()` ran for, so that a middleware mounted after it can tell.
 * A set rather than a mark on the response: Express gives every response its prototype with
 * `Object.setPrototypeOf`, after which V8 builds a new hidden class for each property added to
 * it (no transition is shared between responses), about 3 µs per property on these machines.
 * Kept on `globalThis` under a `Symbol.for` key so that every copy of this package loaded in
 * the process shares it, as they shared the `Symbol.for` mark it replaces.
 */
const MOUNTED = Symbol.for('@resourceful/conditional-requests.mounted');
const shared = globalThis as { [MOUNTED]?: WeakSet<object> };
shared[MOUNTED] ??= new WeakSet();
const mounted: WeakSet<object> = shared[MOUNTED];

/** Registers the function naming this response's variant; the last registration wins. */
export function setRepresentationVariant(
  res: ServerResponse,
  variant: RepresentationVariant,
): void {
  (res as Marked)[VARIANT] = variant;
}

/** The variant names registered for this response (none: the identity representation). */
export function representationVariantOf(
  res: ServerResponse,
  bodyLength: number | undefined,
  bodiless = false,
): readonly string[] {
  return (res as Marked)[VARIANT]?.(res, bodyLength, bodiless) ?? [];
}

/** Whether `conditionalRequests()` already ran for this response. */
/** Whether a variant was registered for this response (a negotiated format or coding). */
export function hasRepresentationVariant(res: ServerResponse): boolean {
  return (res as Marked)[VARIANT] !== undefined;
}

export function hasConditionalRequests(res: ServerResponse): boolean {
  return mounted.has(res);
}

export function markConditionalRequests(res: ServerResponse): void {
  mounted.add(res);
}
