/**
 * `takeQueryHeaders` against a model: the plain reading of the rule (split the query on `&`,
 * decode and lower-case each name, copy and drop the wanted ones, join the rest), on generated
 * queries mixing wanted and other names in every spelling (case, escapes, `+`, characters
 * outside ASCII, empty pieces, repeated `=`, fragments, refused values).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type QueryHeaderName, takeQueryHeaders } from '../src/index.js';

const SEED = 19;
/** The headers for which the parameter wins over the header (README). */
const PARAMETER_WINS = new Set(['accept-charset', 'accept-encoding', 'accept-language']);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 400);

interface Request {
  headers: Record<string, string>;
  url: string;
  originalUrl?: string;
}

function decode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

const nameOf = (piece: string) => {
  const equals = piece.indexOf('=');
  return decode(equals === -1 ? piece : piece.slice(0, equals)).toLowerCase();
};

/** What taking `names` from `req` must do, by the rule as written in the README. */
function model(req: Request, names: readonly QueryHeaderName[], maxLength: number) {
  const wanted = new Map<string, string>();
  for (const name of names) {
    const header = (typeof name === 'string' ? name : name.header).toLowerCase();
    const parameter = (typeof name === 'string' ? name : name.parameter).toLowerCase();
    wanted.set(parameter, header);
  }
  const mark = req.url.indexOf('?');
  if (mark === -1) return { refused: false, req, records: [] };
  const hash = req.url.indexOf('#', mark);
  const end = hash === -1 ? req.url.length : hash;
  const query = req.url.slice(mark + 1, end);
  if (query === '') return { refused: false, req, records: [] };
  const found = new Map<string, { parameter: string; values: string[] }>();
  const taken = new Set<string>();
  const kept: string[] = [];
  for (const piece of query.split('&')) {
    const equals = piece.indexOf('=');
    const parameter = decode(equals === -1 ? piece : piece.slice(0, equals));
    const header = wanted.get(parameter.toLowerCase());
    if (header === undefined) {
      kept.push(piece);
      continue;
    }
    // A value that is not percent-encoded UTF-8 is refused; a name is kept as sent.
    let value: string;
    try {
      value = equals === -1 ? '' : decodeURIComponent(piece.slice(equals + 1).replace(/\+/g, ' '));
    } catch {
      return { refused: true, req, records: [] };
    }
    // … and so is one with a control character or a character beyond Latin-1 (no header has it).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are what is refused
    if (value.length > maxLength || /[\u0000-\u0008\u000a-\u001f\u007f\u0100-\uffff]/.test(value)) {
      return { refused: true, req, records: [] };
    }
    taken.add(parameter.toLowerCase());
    const entry = found.get(header);
    if (entry === undefined) found.set(header, { parameter, values: [value] });
    else entry.values.push(value);
  }
  if (found.size === 0) return { refused: false, req, records: [] };
  const headers = { ...req.headers };
  const byHeader = new Map(
    [...found].map(([header, { parameter, values }]) => {
      const copied = headers[header] === undefined || PARAMETER_WINS.has(header);
      if (copied) headers[header] = values.join(', ');
      return [header, { header, parameter, values, copied }] as const;
    }),
  );
  // Returned in the order of `names`, once each.
  const records = [
    ...new Set(
      names.flatMap((name) => {
        const record = byHeader.get((typeof name === 'string' ? name : name.header).toLowerCase());
        return record === undefined ? [] : [record];
      }),
    ),
  ];
  const rewrite = (url: string) => {
    const at = url.indexOf('?');
    if (at === -1) return url;
    const sharp = url.indexOf('#', at);
    const stop = sharp === -1 ? url.length : sharp;
    const rest = url
      .slice(at + 1, stop)
      .split('&')
      .filter((piece) => !taken.has(nameOf(piece)))
      .join('&');
    return (rest === '' ? url.slice(0, at) : `${url.slice(0, at)}?${rest}`) + url.slice(stop);
  };
  return {
    refused: false,
    req: {
      headers,
      url: rewrite(req.url),
      ...(req.originalUrl === undefined ? {} : { originalUrl: rewrite(req.originalUrl) }),
    },
    records,
  };
}

const NAMES = [
  'Prefer',
  'prefer',
  'PREFER',
  'Pre%66er',
  'pre%46ER',
  'If-Match',
  'if-match',
  'If%2DMatch',
  'preference',
  'Accept-Language',
  'page',
  'x',
  '',
  'a+b',
  'Prefer+',
  '%zz',
  '%E2%84%AAey',
  'K\u00e9y',
  // KELVIN SIGN, which toLowerCase() makes an ASCII k (a URL set by code can hold it).
  '\u212Aey',
  '\u00c9',
  '__proto__',
];
const VALUES = [
  '',
  'a',
  'return%3Dminimal',
  'wait=1',
  'a=b=c',
  '%E0%A4%A',
  '+x+',
  '%22b%22',
  'fr',
  '%0A',
  'x'.repeat(40),
];

const piece = fc.oneof(
  fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...VALUES)).map(([n, v]) => `${n}=${v}`),
  fc.constantFrom(...NAMES),
  // Empty pieces (`?&a`, `?a&&b`, `?a&`) are kept, and decide whether a `?` stays.
  fc.constant(''),
);
const query = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join('&'));
const requests = fc
  .record({
    path: fc.constantFrom('/x', '/v1/things-14/T-1', '/a/b/'),
    query,
    question: fc.boolean(),
    fragment: fc.constantFrom('', '#top', '#a&Prefer=1'),
    prefix: fc.constantFrom(undefined, '', '/v1'),
    preferSent: fc.boolean(),
    languageSent: fc.boolean(),
  })
  .map(({ path, query, question, fragment, prefix, preferSent, languageSent }) => {
    const url = `${path}${question || query !== '' ? `?${query}` : ''}${fragment}`;
    const headers: Record<string, string> = {};
    if (preferSent) headers.prefer = 'respond-async';
    if (languageSent) headers['accept-language'] = 'en';
    return {
      headers,
      url,
      ...(prefix === undefined ? {} : { originalUrl: `${prefix}${url}` }),
    };
  });
const nameLists = fc.constantFrom<QueryHeaderName[]>(
  ['Prefer', 'If-Match', 'Accept-Language'],
  ['prefer'],
  [{ header: 'Prefer', parameter: 'preference' }, 'If-Match'],
  [{ header: 'Prefer', parameter: 'x' }, 'Prefer'],
  ['Key'],
  [],
);

describe('takeQueryHeaders against the model', () => {
  it('copies, records and removes exactly what the model does, or refuses what it refuses', () => {
    fc.assert(
      fc.property(requests, nameLists, fc.constantFrom(8, 8192), (sent, names, maxLength) => {
        const expected = model(structuredClone(sent), names, maxLength);
        const req = structuredClone(sent);
        let refused = false;
        let records: unknown[] = [];
        try {
          records = takeQueryHeaders(req, names, { maxLength });
        } catch {
          refused = true;
        }
        expect(refused).toBe(expected.refused);
        expect(req).toEqual(expected.refused ? sent : expected.req);
        expect(records).toEqual(expected.records);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
