export {
  type CompositeContext,
  type CompositeOperation,
  type CompositeOperationOptions,
  compositeOperation,
} from './composite.js';
export {
  type ComputedResource,
  type ComputedResourceOptions,
  computedResource,
} from './computed-resource.js';
export type { CreatedRecords, RelatedLink } from './created-record.js';
export {
  type ActionOutcome,
  type ActionRecord,
  type HistoryStore,
  memoryHistoryStore,
} from './history.js';
export {
  complexOperationRoutes,
  DECLARED_OPERATIONS,
  mountOperations,
  operationPattern,
  type RouterLike,
} from './mount.js';
export {
  type CreateContext,
  type ResourceOrientedOperation,
  type ResourceOrientedOperationOptions,
  resourceOrientedOperation,
} from './resource-oriented.js';
export type { StandardSchemaV1 } from './standard-schema.js';
export {
  type ActionContext,
  type ActionDefinition,
  type HistoryPagingOptions,
  type SubResourceActions,
  type SubResourceActionsOptions,
  subResourceActions,
} from './sub-resource-actions.js';
export {
  type TransientOperation,
  type TransientOperationOptions,
  transientOperation,
} from './transient.js';
export type {
  Link,
  Next,
  NotFoundOptions,
  Operation,
  OperationHandler,
  OperationKind,
  OperationRequest,
  OperationRoute,
} from './types.js';
