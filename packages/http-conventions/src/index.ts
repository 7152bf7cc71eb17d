export {
  type AllowedMethodsOptions,
  allowedMethods,
} from './allowed-methods.js';
export { type HttpConventionsOptions, httpConventions } from './conventions.js';
export {
  type AnswerUrlOverflowOptions,
  answerUrlOverflow,
  type ClientErrorListener,
  DEFAULT_MAX_URL_LENGTH,
  type LimitUrlLengthOptions,
  limitUrlLength,
  uriTooLong,
} from './long-urls.js';
export {
  CREDENTIAL_HEADERS,
  DEFAULT_QUERY_HEADER_MAX_LENGTH,
  DEFAULT_QUERY_HEADERS,
  QUERY_HEADERS_KEY,
  type QueryHeader,
  type QueryHeaderName,
  type QueryHeaderRequest,
  type QueryHeadersOptions,
  queryHeaders,
  queryHeadersOf,
  REFUSED_QUERY_HEADERS,
  type TakeQueryHeadersOptions,
  takeQueryHeaders,
} from './query-headers.js';
export {
  DEFAULT_REQUEST_ID_HEADER,
  DEFAULT_REQUEST_ID_MAX_LENGTH,
  getRequestId,
  isWellFormedRequestId,
  REQUEST_ID_KEY,
  type RequestIdOptions,
  requestId,
} from './request-id.js';
export {
  DATE_FORMATS,
  type DateFormat,
  formatImfFixdate,
  formatRfc3339,
  type ResponseDateOptions,
  responseDate,
} from './response-date.js';
export {
  ANY_METHOD_ALLOW,
  allowList,
  type ServedMethods,
  servedMethods,
} from './route-methods.js';
