export { type Charset, charsetOf, jsonToLatin1, LATIN1_ALIASES } from './charsets.js';
export { contentNegotiation } from './content-negotiation.js';
export {
  ACCEPT_QUERY_PARAMETER,
  chooseMediaType,
  type Format,
  MEDIA_TYPES,
  type MediaTypeChoice,
  notAcceptable,
  SHORT_FORMS,
} from './formats.js';
export { MAX_ACCEPT_HEADER_ELEMENTS, MAX_ACCEPT_HEADER_LENGTH } from './header-limits.js';
export {
  JSONP_CALLBACK_PARAMETER,
  jsonpBody,
  MAX_CALLBACK_LENGTH,
  parseCallback,
} from './jsonp.js';
export { lookupLanguage, parseAcceptLanguage } from './languages.js';
export {
  assertContentNegotiationOrder,
  checkContentNegotiationOrder,
  type MiddlewareOrderFinding,
  type MiddlewareOrderRule,
} from './middleware-order.js';
export { getLanguage, getNegotiated, type Negotiated } from './negotiated.js';
export { negotiatedCompression } from './negotiated-compression.js';
export {
  CONTENT_NEGOTIATION_DEFAULTS,
  type CompressionOptions,
  type ContentNegotiationOptions,
} from './options.js';
export { acceptOfRequest } from './request-negotiation.js';
export { type ToXmlOptions, toXml, XML_ROOT_ELEMENT } from './xml.js';
