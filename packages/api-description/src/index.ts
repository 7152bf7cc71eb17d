export { COMMON_READ_ONLY_FIELDS, describeApi } from './describe-api.js';
export { isStandardJsonSchema, type SchemaSide, toJsonSchema } from './json-schema.js';
export {
  ERROR_RESPONSES,
  type OpenApiDocument,
  type OpenApiOptions,
  openApiDocument,
} from './openapi.js';
export type {
  ActionDescription,
  ApiDescription,
  ApiDescriptionInit,
  DescribedOperation,
  DescribedResource,
  JsonSchema,
  ListDescription,
  OperationDescription,
  ResourceDescription,
  ResourceOperations,
  SchemaSource,
} from './types.js';
