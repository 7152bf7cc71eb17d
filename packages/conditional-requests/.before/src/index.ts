export {
  CONDITIONAL_REQUESTS_DEFAULTS,
  type ConditionalRequestsOptions,
  conditionalRequests,
} from './conditional-requests.js';
export {
  CONDITIONAL_WRITE_DEFAULTS,
  type ConditionalWriteOptions,
  conditionalWrite,
  type IfMissing,
  requestPath,
  type WriteCondition,
} from './conditional-write.js';
export {
  type EntityTag,
  type EntityTagList,
  type ETagOptions,
  etagFor,
  formatETag,
  generateETag,
  MAX_LIST_ENTRIES,
  parseETag,
  parseETagList,
  representationETag,
  resourceETag,
  strongMatch,
  VARIANT_SEPARATOR,
  weakMatch,
} from './entity-tag.js';
export { KeyedLock } from './keyed-lock.js';
export {
  type EvaluatePreconditionsOptions,
  evaluatePreconditions,
  isSafeMethod,
  type PreconditionOutcome,
} from './preconditions.js';
export {
  hasConditionalRequests,
  type RepresentationVariant,
  representationVariantOf,
  setRepresentationVariant,
} from './representation-variant.js';
export { isStaleVersionError, StaleVersionError } from './stale-version.js';
