import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, listen, type RunningServer } from '@resourceful/test-support';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_NESTING, graphqlEndpoint, graphqlSchema, nestingDepth } from '../src/index.js';
import { api, arrayResolvers, sampleCards } from './fixtures.js';

/** The reviewer's document: 3000 nested selection sets, more than the parser's stack holds. */
const DEEP = `{${'a{'.repeat(3000)}b${'}'.repeat(3001)}}`;

interface GraphqlAnswer {
  readonly status: number;
  readonly text: string;
  readonly body: { errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function post(url: string, query: string, accept = 'application/graphql-response+json') {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ query }),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) } as GraphqlAnswer;
}

describe('nestingDepth', () => {
  it('counts braces, parentheses and brackets open at once', () => {
    expect(nestingDepth('{ a }')).toBe(1);
    expect(nestingDepth('{ a(b: [{ c: 1 }]) { d } }')).toBe(4);
    expect(nestingDepth('query($v: [[Int!]!]) { a }')).toBe(3);
    expect(nestingDepth('{ a } { b { c } }')).toBe(2);
    expect(nestingDepth('')).toBe(0);
  });

  it('leaves out the brackets of strings, block strings and comments', () => {
    expect(nestingDepth('{ a(s: "{{{[[[(((") }')).toBe(2);
    expect(nestingDepth('{ a(s: "\\"{{{") }')).toBe(2);
    expect(nestingDepth('{ a(s: """ {{{ \\""" [[[ """) }')).toBe(2);
    expect(nestingDepth('{ a # {{{{{{\n b }')).toBe(1);
    expect(nestingDepth('{ a # {{{{{{\r b }')).toBe(1);
  });

  it('ends a string at a line end, as the lexer does', () => {
    // The lexer refuses the unterminated string; what follows is counted, never hidden.
    expect(nestingDepth('{ a(s: "open\n{{{ }')).toBe(5);
  });

  it('ignores closing brackets without an opening one', () => {
    expect(nestingDepth('}}} { a }')).toBe(1);
  });

  it('stops one past the bound it is given', () => {
    expect(nestingDepth(DEEP, 64)).toBe(65);
    expect(nestingDepth(DEEP)).toBe(3001);
  });

  it('agrees with graphql-js on what its parser reads', () => {
    const source = '{ a(x: {y: [1, {z: "}"}]}) { b # )\n c { d } } }';
    expect(() => parse(source)).not.toThrow();
    expect(nestingDepth(source)).toBe(5);
  });
});

describeEachExpress('graphqlEndpoint and deeply nested documents', (express) => {
  let server: RunningServer;
  let url: string;
  const schema = graphqlSchema(api, { resolvers: arrayResolvers(sampleCards(2)).resolvers });

  beforeAll(async () => {
    const app = express();
    app.use(express.json({ limit: '1mb' }));
    app.use('/graphql', graphqlEndpoint({ schema }));
    app.use('/unbounded', graphqlEndpoint({ schema, maxNesting: 1_000_000, maxTokens: 1_000_000 }));
    app.use(errorHandler({ onError: () => undefined }));
    server = await listen(app);
    url = `${server.url}/graphql`;
  });
  afterAll(() => server.close());

  // First in the file: the first document this module's parser sees (a cold parser overflowed
  // the stack where a warm one reached the token bound).
  it('refuses the nested document on the first request with QUERY_TOO_NESTED, and on every repeat', async () => {
    const answers: GraphqlAnswer[] = [];
    for (let round = 0; round < 4; round++) answers.push(await post(url, DEEP));
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        errors: [
          {
            message: `The document nests brackets ({, ( and [) more than ${DEFAULT_MAX_NESTING} deep; at most ${DEFAULT_MAX_NESTING} are served.`,
            extensions: { code: 'QUERY_TOO_NESTED' },
          },
        ],
      });
    }
  });

  it('answers as its other limits do for a client accepting only application/json', async () => {
    const res = await post(url, DEEP, 'application/json');
    // GraphQL over HTTP's legacy rule for request errors, as for QUERY_TOO_DEEP.
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_NESTED');
  });

  it('refuses nesting in arguments and variable types too', async () => {
    const deepList = await post(
      url,
      `{ credit_card(id: ${'['.repeat(200)}1${']'.repeat(200)}) { id } }`,
    );
    expect(deepList.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_NESTED');
    const deepType = await post(
      url,
      `query($v: ${'['.repeat(200)}ID${']'.repeat(200)}) { __typename }`,
    );
    expect(deepType.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_NESTED');
  });

  it('serves a document exactly as nested as the bound', async () => {
    // 64 brackets: a selection set and 63 nested list values in an argument.
    const atBound = `{ credit_card(id: ${'['.repeat(62)}"x"${']'.repeat(62)}) { id } }`;
    expect(nestingDepth(atBound)).toBe(DEFAULT_MAX_NESTING);
    const res = await post(url, atBound);
    // Past the nesting check: refused by validation (a list is no ID), not by the bound.
    expect(res.body.errors?.[0]?.extensions?.code).not.toBe('QUERY_TOO_NESTED');
    expect(res.status).toBe(400);
  });

  it('keeps brackets inside strings out of the count', async () => {
    const res = await post(url, `{ credit_card(id: "${'{'.repeat(500)}") { id } }`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  it('never lets the engine’s stack overflow reach the client', async () => {
    // Unbounded: the parser itself recurses until the stack is exhausted.
    const res = await post(
      `${server.url}/unbounded`,
      `{${'a{'.repeat(100_000)}b${'}'.repeat(100_001)}}`,
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          message: 'The document is too complex to be served.',
          extensions: { code: 'QUERY_TOO_COMPLEX' },
        },
      ],
    });
    expect(res.text).not.toMatch(/call stack|RangeError/i);
  });

  it('refuses a maxNesting that is not a positive integer', () => {
    for (const maxNesting of [0, -1, 1.5, Number.NaN]) {
      expect(() => graphqlEndpoint({ schema, maxNesting })).toThrow(
        expect.objectContaining({
          code: 'ERR_RESOURCEFUL_INVALID_OPTION',
          option: 'maxNesting',
          message: expect.stringMatching(/"maxNesting" must be a positive integer/),
        }),
      );
    }
  });
});

describe('nestingDepth argument checks', () => {
  it.each([
    [
      'source',
      () => nestingDepth(undefined as unknown as string),
      /"source" must be the text of a GraphQL document, got undefined/,
    ],
    [
      'source',
      () => nestingDepth(5 as unknown as string),
      /"source" must be the text of a GraphQL document, got/,
    ],
    ['stopAbove', () => nestingDepth('{a}', Number.NaN), /"stopAbove" must be a number/],
    [
      'stopAbove',
      () => nestingDepth('{a}', '3' as unknown as number),
      /"stopAbove" must be a number/,
    ],
  ])('refuses a wrong-typed %s with a coded TypeError naming it', (option, run, message) => {
    expect(run).toThrow(message);
    expect(run).toThrow(
      expect.objectContaining({
        name: 'TypeError',
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        factory: 'nestingDepth',
        option,
      }),
    );
  });
});
