import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ContentNegotiationOptions, resolveOptions } from '../src/options.js';
import { requestNegotiation } from '../src/request-negotiation.js';

const OPTIONS: readonly ContentNegotiationOptions[] = [
  {},
  { xml: false },
  { jsonp: true },
  { jsonp: true, languages: ['en', 'fr'] },
  { languages: ['fr-CA'] },
  { compression: false },
  { xml: false, jsonp: true, compression: false, languages: ['de'] },
];

/** The two negotiations of `contentNegotiation(options)`, built as the middleware builds them. */
function negotiationsFor(options: ContentNegotiationOptions) {
  return requestNegotiation(resolveOptions(options));
}

interface RequestShape {
  method: string | undefined;
  url: string;
  originalUrl: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

function requestOf(shape: RequestShape): IncomingMessage {
  return shape as unknown as IncomingMessage;
}

/** The full negotiation's answer, or the error it throws. */
function fully(negotiate: (req: IncomingMessage) => unknown, req: IncomingMessage) {
  try {
    return { answer: negotiate(req) };
  } catch (error) {
    return { error };
  }
}

const ACCEPT_VALUES = [
  'application/json',
  '*/*',
  'application/xml',
  'text/xml',
  'text/javascript',
  'text/html',
  'application/json; charset=utf-8',
  'application/json;q=0',
  'application/json, */*;q=0.1',
  'APPLICATION/JSON',
  ' application/json',
  'application/json ',
  '*/*;q=0',
  '',
  ',',
  '"',
  'application/*',
  'image/png',
];
const CHARSET_VALUES = ['utf-8', 'iso-8859-1', 'latin1', '*', 'utf-8;q=0', 'koi8-r', '', ';;'];
const LANGUAGE_VALUES = ['fr', 'en', 'fr-CA', '*', 'de;q=0', 'x-klingon', '', 'fr;q=abc'];
const ENCODING_VALUES = ['gzip', 'br', 'identity', 'gzip;q=0', '*', 'compress', '', 'identity;q=0'];

/** A header value: absent, a common one, a malformed one, an over-long one, or repeated lines. */
function headerValue(common: readonly string[]) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    fc.constantFrom(...common),
    fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constantFrom('a,'.repeat(80), 'x'.repeat(5000), `${'application/json'.repeat(300)}`),
    fc.array(fc.constantFrom(...common), { minLength: 2, maxLength: 3 }),
  );
}

const QUERIES = [
  '',
  '?',
  '?accept=xml',
  '?accept=json',
  '?accept=application/json',
  '?accept=',
  '?accept=json&accept=xml',
  '?xaccept=1',
  '?a=1&accept=jsonp&callback=cb',
  '?callback=cb',
  '?ACCEPT=xml',
  '?acc%65pt=xml',
  '?__proto__=1&accept=__proto__',
  '?page=2#accept=xml',
];

const request = fc.record<RequestShape>({
  method: fc.constantFrom(
    'GET',
    'HEAD',
    'POST',
    'PUT',
    'PATCH',
    'DELETE',
    'OPTIONS',
    'get',
    'head',
  ),
  url: fc.constantFrom(...QUERIES).map((query) => `/cards${query}`),
  originalUrl: fc.option(
    fc.constantFrom(...QUERIES).map((query) => `/v1/cards${query}`),
    { nil: undefined },
  ),
  headers: fc.record(
    {
      accept: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(undefined, '*/*', 'application/json') },
        { weight: 2, arbitrary: headerValue(ACCEPT_VALUES) },
      ),
      'accept-charset': headerValue(CHARSET_VALUES),
      'accept-language': headerValue(LANGUAGE_VALUES),
      'accept-encoding': headerValue(ENCODING_VALUES),
    },
    { requiredKeys: [] },
  ),
});

describe('the plain JSON shortcut', () => {
  it.each(OPTIONS.map((options) => [JSON.stringify(options), options] as const))(
    'gives what the full negotiation gives, whenever it answers, with %s (seeded)',
    (_name, options) => {
      const { negotiate, negotiatePlainJson } = negotiationsFor(options);
      let taken = 0;
      fc.assert(
        fc.property(request, (shape) => {
          const req = requestOf(shape);
          const shortcut = negotiatePlainJson(req);
          if (shortcut === undefined) return;
          taken++;
          // The full negotiation neither throws nor chooses anything else for this request.
          expect(fully(negotiate, req)).toEqual({ answer: shortcut });
        }),
        { seed: 19, numRuns: 1500 },
      );
      // The generator reaches the shortcut often enough for the comparison to mean something.
      expect(taken).toBeGreaterThan(50);
    },
  );

  it.each([
    ['no Accept* header', {}],
    ['Accept: application/json', { accept: 'application/json' }],
    ['Accept: */*', { accept: '*/*' }],
  ])('answers a GET with %s', (_name, headers) => {
    const { negotiatePlainJson } = negotiationsFor({});
    const req = requestOf({ method: 'GET', url: '/cards?page=2', originalUrl: undefined, headers });
    expect(negotiatePlainJson(req)).toEqual({
      format: 'json',
      mediaType: 'application/json',
      charset: 'utf-8',
      language: undefined,
      encoding: undefined,
      callback: undefined,
    });
  });

  it('gives the default language when languages are offered and none is asked for', () => {
    const { negotiatePlainJson } = negotiationsFor({ languages: ['fr', 'en'] });
    const req = requestOf({ method: 'POST', url: '/cards', originalUrl: undefined, headers: {} });
    expect(negotiatePlainJson(req)?.language).toBe('fr');
  });

  it.each([
    ['Accept-Encoding', { 'accept-encoding': 'gzip' }, '/cards'],
    ['Accept-Charset', { 'accept-charset': 'utf-8' }, '/cards'],
    ['Accept: application/xml', { accept: 'application/xml' }, '/cards'],
    ['repeated Accept lines', { accept: ['application/json', 'application/json'] }, '/cards'],
    ['the accept query parameter', {}, '/cards?accept=xml'],
  ])('leaves a request with %s to the full negotiation', (_name, headers, url) => {
    const { negotiatePlainJson } = negotiationsFor({});
    const req = requestOf({ method: 'GET', url, originalUrl: undefined, headers });
    expect(negotiatePlainJson(req)).toBeUndefined();
  });

  it('reads Accept-Language and Accept-Encoding only when the options negotiate them', () => {
    const headers = { 'accept-language': 'x'.repeat(5000), 'accept-encoding': 'gzip' };
    const req = requestOf({ method: 'GET', url: '/cards', originalUrl: undefined, headers });
    expect(negotiationsFor({ compression: false }).negotiatePlainJson(req)).toBeDefined();
    expect(negotiationsFor({ languages: ['en'], compression: false }).negotiatePlainJson(req)).toBe(
      undefined,
    );
  });

  it('shares one frozen answer, which no route can change for the next request', () => {
    const { negotiatePlainJson } = negotiationsFor({});
    const req = requestOf({ method: 'GET', url: '/cards', originalUrl: undefined, headers: {} });
    const answer = negotiatePlainJson(req);
    expect(Object.isFrozen(answer)).toBe(true);
    expect(negotiatePlainJson(req)).toBe(answer);
  });
});
