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

/**
 * The responses `conditionalRequests()` ran for, so that a middleware mounted after it can tell,
 * and the variant registered for a response, each kept by response rather than as a property
 * of it: Express gives every response its prototype with `Object.setPrototypeOf`, after which
 * V8 builds a new hidden class for each property added to it (no transition is shared between
 * responses), about 3 µs per property on these machines; and reading a property no response
 * has (the variant, on every answer without one) looked it up through the whole prototype
 * chain of a hidden class seen once, a miss of every inline cache. Both are kept on `globalThis`
 * under `Symbol.for` keys so that every copy of this package loaded in the process shares them,
 * as they shared the `Symbol.for` properties these replace.
 */
const MOUNTED = Symbol.for('@resourceful/conditional-requests.mounted');
const VARIANTS = Symbol.for('@resourceful/conditional-requests.representation-variants');
const shared = globalThis as {
  [MOUNTED]?: WeakSet<object>;
  [VARIANTS]?: WeakMap<object, RepresentationVariant>;
};
shared[MOUNTED] ??= new WeakSet();
shared[VARIANTS] ??= new WeakMap();
const mounted: WeakSet<object> = shared[MOUNTED];
const variants: WeakMap<object, RepresentationVariant> = shared[VARIANTS];

/**
 * The maps of response states each copy of the package keeps for the responses it attached to
 * through its shared methods (response-hooks.ts): such a response is in one of them already, so
 * it needs no mark in `mounted` as well (one `WeakSet` entry less per response, for the
 * collector too). Shared the same way, so every copy sees every other copy's.
 *
 * A copy's map leaves the list when the copy is gone: when the object it names as its owner (its
 * shared `end`, which every response attached through it reaches while it lives) has been
 * collected. A module loaded again (a test runner's fresh module registry, a cleared
 * `require.cache`) is a copy of its own while the earlier one may still serve responses (an app
 * built with it still holds its middleware and its shared methods), so the list cannot drop a map
 * when the same file is loaded again, only when the copy that made it is unreachable; it holds
 * one map per live copy instead of one per load.
 */
const ATTACHED = Symbol.for('@resourceful/conditional-requests.attached-states');
const RELEASE = Symbol.for('@resourceful/conditional-requests.attached-states-release');
const sharedAttached = globalThis as {
  [ATTACHED]?: WeakMap<object, unknown>[];
  [RELEASE]?: FinalizationRegistry<WeakMap<object, unknown>>;
};
sharedAttached[ATTACHED] ??= [];
const attachedStates: WeakMap<object, unknown>[] = sharedAttached[ATTACHED];
sharedAttached[RELEASE] ??= new FinalizationRegistry((states) => {
  const at = attachedStates.indexOf(states);
  if (at !== -1) attachedStates.splice(at, 1);
});
const release = sharedAttached[RELEASE];

/**
 * Makes `hasConditionalRequests` true for every response that has a state in `states`, for as
 * long as `owner` lives (`states` must not reach `owner` but through its entries).
 */
export function countAttached(states: WeakMap<object, unknown>, owner: object): void {
  attachedStates.push(states);
  release.register(owner, states);
}

/** Registers the function naming this response's variant; the last registration wins. */
export function setRepresentationVariant(
  res: ServerResponse,
  variant: RepresentationVariant,
): void {
  variants.set(res, variant);
}

/** The variant names registered for this response (none: the identity representation). */
export function representationVariantOf(
  res: ServerResponse,
  bodyLength: number | undefined,
  bodiless = false,
): readonly string[] {
  return variants.get(res)?.(res, bodyLength, bodiless) ?? [];
}

/** Whether a variant was registered for this response (a negotiated format or coding). */
export function hasRepresentationVariant(res: ServerResponse): boolean {
  return variants.has(res);
}

/** Whether `conditionalRequests()` already ran for this response. */
export function hasConditionalRequests(res: ServerResponse): boolean {
  if (mounted.has(res)) return true;
  for (const states of attachedStates) if (states.has(res)) return true;
  return false;
}

/** Marks a response whose own methods the middleware replaced (no shared state to find it by). */
export function markConditionalRequests(res: ServerResponse): void {
  mounted.add(res);
}
