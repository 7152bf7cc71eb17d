export {
  ApiError,
  type ApiErrorInit,
  type ErrorDetail,
  type ErrorEnvelope,
  type ErrorObject,
  type ErrorOptions,
  type InnerError,
  isApiError,
  type RetryableErrorOptions,
} from './api-error.js';
export { asyncHandler } from './async-handler.js';
export {
  type CatalogueEntry,
  codeForStatus,
  ERROR_CATALOGUE,
  type ErrorCode,
} from './catalogue.js';
export {
  type ParsedError,
  type ParsedErrorResponse,
  parseErrorBody,
  type ResponseLike,
  readErrorResponse,
} from './client.js';
export {
  attachServerErrorHandlers,
  type ClientErrorHandlerOptions,
  clientErrorHandler,
  hasRepeatedHost,
} from './client-error-handler.js';
export { errorHandler } from './error-handler.js';
export {
  DEFAULT_CODE_HEADER,
  DEFAULT_RETRY_AFTER_SECONDS,
  type ErrorHandlerOptions,
  type ErrorKind,
  type ErrorReport,
  type ErrorSettings,
  errorSettingsFor,
  REQUEST_ID_KEY,
} from './error-settings.js';
export { isValidHost, MAX_HOST_NAME_LENGTH } from './host-header.js';
export {
  formatFieldPath,
  fromZodError,
  isZodError,
  type NormalizeOptions,
  toApiError,
} from './normalize.js';
export { type NotFoundHandlerOptions, notFoundHandler } from './not-found-handler.js';
export type { RawAnswerDateFormat, RawAnswerOptions } from './raw-answers.js';
export {
  classifyError,
  type SendErrorOptions,
  sendError,
  wasCutByErrorHandler,
} from './send-error.js';
