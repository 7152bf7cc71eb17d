export {
  type ColumnOption,
  DEFAULT_MAX_OFFSET,
  type PgDataSourceOptions,
  pgDataSource,
  type Queryable,
} from './pg-source.js';
