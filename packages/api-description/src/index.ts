export { COMMON_READ_ONLY_FIELDS, describeApi, isApiDescription } from './describe-api.js';
export { isStandardJsonSchema, type SchemaSide, toJsonSchema } from './json-schema.js';
export { enumFilterValues, MAX_FILTER_LENGTH } from './list-filters.js';
export {
  ERROR_RESPONSES,
  type OpenApiDocument,
  type OpenApiOptions,
  openApiDocument,
  subCollectionOperationId,
} from './openapi.js';
export type {
  ActionDescription,
  ApiDescription,
  ApiDescriptionInit,
  DescribedAction,
  DescribedOperation,
  DescribedResource,
  DescribedSearch,
  DescribedSubCollection,
  JsonSchema,
  ListDescription,
  NamedSchema,
  OperationDescription,
  PagingKind,
  ResourceDescription,
  ResourceOperations,
  ResourceStorage,
  SchemaSource,
  SearchDescription,
  SubCollectionDescription,
  SubCollectionListDescription,
  TotalsMode,
} from './types.js';
