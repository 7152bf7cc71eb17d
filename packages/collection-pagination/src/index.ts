export { getCollectionQuery } from './collection-query.js';
export {
  type CollectionSpec,
  DEFAULT_MAX_PAGE_SIZE,
  DEFAULT_PAGE_SIZE,
} from './collection-spec.js';
export {
  type ContinuationOptions,
  MAX_PAGE_TOKEN_LENGTH,
} from './continuation-token.js';
export { buildCollectionEnvelope, type EnvelopeInput } from './envelope.js';
export { buildPageLinks, type PageLinksInput, totalPages } from './links.js';
export { type MemoryDataSourceOptions, memoryDataSource } from './memory-source.js';
export { type PaginateOptions, paginate, sendCollectionPage } from './paginate.js';
export {
  MAX_PARAMETER_LENGTH,
  parseCollectionQuery,
  type QueryInput,
} from './parse-query.js';
export { requestUrl } from './request-url.js';
export { type SearchCollectionOptions, searchCollection } from './search.js';
export type { StandardSchemaV1 } from './standard-schema.js';
export { parseTimestamp } from './timestamp.js';
export type {
  CollectionEnvelope,
  CollectionQuery,
  DataSource,
  KeysetDataSource,
  KeysetPosition,
  KeyValue,
  Link,
  Naming,
  PagingParameters,
  SortOrder,
  SortSpec,
  TimeCondition,
} from './types.js';
