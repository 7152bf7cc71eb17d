export {
  DEFAULT_MAX_BODY_BYTES,
  type GraphqlEndpointOptions,
  graphqlEndpoint,
  type RequestContext,
  SDL_PATH,
} from './endpoint.js';
export { DEFAULT_QUERY_LIMITS, type QueryLimits, queryLimitRules } from './limits.js';
export { DEFAULT_MAX_NESTING, nestingDepth } from './nesting.js';
export { DateTimeScalar, isRfc3339, JsonObjectScalar } from './scalars.js';
export {
  actionOperationId,
  type GraphqlSchemaOptions,
  graphqlSchema,
  listFieldName,
  operationFieldName,
  SortOrderType,
  singleFieldName,
  subCollectionFieldName,
} from './schema.js';
export {
  graphqlEnumValues,
  LinkMethodType,
  type LinkSource,
  LinkType,
  ResourceInterface,
} from './type-builder.js';
export type {
  CollectionPage,
  ListArguments,
  OperationCall,
  OperationResolver,
  PageArguments,
  ResourceResolvers,
} from './types.js';
