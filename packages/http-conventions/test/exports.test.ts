import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'ANY_METHOD_ALLOW',
    'CREDENTIAL_HEADERS',
    'DATE_FORMATS',
    'DEFAULT_MAX_URL_LENGTH',
    'DEFAULT_QUERY_HEADERS',
    'DEFAULT_QUERY_HEADER_MAX_LENGTH',
    'DEFAULT_REQUEST_ID_HEADER',
    'DEFAULT_REQUEST_ID_MAX_LENGTH',
    'QUERY_HEADERS_KEY',
    'REFUSED_QUERY_HEADERS',
    'REQUEST_ID_KEY',
    'allowList',
    'allowedMethods',
    'answerUrlOverflow',
    'formatImfFixdate',
    'formatRfc3339',
    'getRequestId',
    'httpConventions',
    'isWellFormedRequestId',
    'limitUrlLength',
    'queryHeaders',
    'queryHeadersOf',
    'requestId',
    'responseDate',
    'servedMethods',
    'takeQueryHeaders',
    'uriTooLong',
  ]);
});
