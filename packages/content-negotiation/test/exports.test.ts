import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'ACCEPT_QUERY_PARAMETER',
    'CONTENT_NEGOTIATION_DEFAULTS',
    'JSONP_CALLBACK_PARAMETER',
    'LATIN1_ALIASES',
    'MAX_ACCEPT_HEADER_ELEMENTS',
    'MAX_ACCEPT_HEADER_LENGTH',
    'MAX_CALLBACK_LENGTH',
    'MEDIA_TYPES',
    'SHORT_FORMS',
    'XML_ROOT_ELEMENT',
    'acceptOfRequest',
    'assertContentNegotiationOrder',
    'charsetOf',
    'checkContentNegotiationOrder',
    'chooseMediaType',
    'contentNegotiation',
    'getLanguage',
    'getNegotiated',
    'jsonToLatin1',
    'jsonpBody',
    'lookupLanguage',
    'negotiatedCompression',
    'notAcceptable',
    'parseAcceptLanguage',
    'parseCallback',
    'toXml',
  ]);
});
