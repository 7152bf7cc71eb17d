import { errorHandler, parseErrorBody } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  type RunningServer,
} from '@resourceful/test-support';
import {
  buildClientSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  printSchema,
} from 'graphql';
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlEndpoint, graphqlSchema } from '../src/index.js';
import { api, arrayResolvers, sampleCards } from './fixtures.js';

interface GraphqlBody {
  // biome-ignore lint/suspicious/noExplicitAny: the tests read answers by known paths
  data?: any;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

describeEachExpress('graphqlEndpoint', (express) => {
  let server: RunningServer;
  const schema = graphqlSchema(api, {
    resolvers: arrayResolvers(sampleCards(5)).resolvers,
    mutations: ['CreditCard'],
  });

  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.use(
      '/graphql',
      graphqlEndpoint({ schema, limits: { maxDepth: 3, maxCost: 300 }, help: '/docs' }),
    );
    app.use(errorHandler({ onError: () => undefined }));
    server = await listen(app);
  });
  afterAll(() => server.close());

  async function post(body: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      body: (await res.json()) as GraphqlBody,
    };
  }

  it('answers a query POSTed as JSON with query, variables and operationName', async () => {
    const res = await post({
      query: 'query One($id: ID!) { credit_card(id: $id) { id } } query Other { __typename }',
      variables: { id: 'CARD-3' },
      operationName: 'One',
    });
    expect(res).toMatchObject({ status: 200, body: { data: { credit_card: { id: 'CARD-3' } } } });
    expect(res.type).toMatch(/^application\/graphql-response\+json/);
  });

  it('answers a query sent with GET ?query=', async () => {
    const url = `${server.url}/graphql?query=${encodeURIComponent('{ credit_cards(page_size: 2) { items { id } } }')}`;
    const res = await fetch(url, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: { credit_cards: { items: [{ id: 'CARD-1' }, { id: 'CARD-2' }] } },
    });
  });

  it('refuses a mutation sent with GET, as GraphQL over HTTP requires', async () => {
    const url = `${server.url}/graphql?query=${encodeURIComponent('mutation { create_credit_card(input: {payer_id: "u", type: visa, number: "4111111111111111"}) { id } }')}`;
    const res = await fetch(url, { headers: { accept: 'application/graphql-response+json' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    // graphql-http gives this answer's JSON body no media type; the endpoint names it.
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      errors: [{ message: 'Cannot perform mutations over GET' }],
    });
  });

  describe('refusals before GraphQL (the error envelope, not GraphQL errors)', () => {
    async function envelopeOf(res: Response) {
      const body = await res.json();
      return { status: res.status, body, headers: Object.fromEntries(res.headers) };
    }

    it.each([
      ['text/plain', 'text/plain'],
      ['form data', 'application/x-www-form-urlencoded'],
      ['JSON in another charset', 'application/json; charset=iso-8859-1'],
      ['GraphQL source', 'application/graphql'],
    ])('answers 415 naming Content-Type to a POST of %s', async (_, type) => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/graphql-response+json' },
        body: '{ __typename }',
      });
      const answer = await envelopeOf(res);
      expectErrorEnvelope(answer, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
      expect(parseErrorBody(answer.body)?.message).toMatch(/application\/json|charset/);
    });

    it('answers 415 to a POST without Content-Type', async () => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        body: new Uint8Array(Buffer.from('{"query":"{ __typename }"}')),
      });
      expectErrorEnvelope(await envelopeOf(res), 415, { target: 'Content-Type' });
    });

    it.each(['text/html', 'application/xml', 'application/json; charset=iso-8859-1'])(
      'answers 406 naming Accept, with the media types available, to Accept: %s',
      async (accept) => {
        for (const request of [
          fetch(`${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
            headers: { accept },
          }),
          fetch(`${server.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept },
            body: JSON.stringify({ query: '{ __typename }' }),
          }),
        ]) {
          const answer = await envelopeOf(await request);
          expectErrorEnvelope(answer, 406, { code: 'NOT_ACCEPTABLE', target: 'Accept' });
          expect(parseErrorBody(answer.body)?.details).toEqual([
            {
              code: 'AVAILABLE_MEDIA_TYPE',
              message: 'application/graphql-response+json',
              target: 'Accept',
            },
            { code: 'AVAILABLE_MEDIA_TYPE', message: 'application/json', target: 'Accept' },
          ]);
        }
      },
    );

    it('keeps GraphQL errors for a request that reached GraphQL (a document that does not parse)', async () => {
      const res = await post({ query: '{' });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.message).toMatch(/Syntax Error/);
    });
  });

  describe('methods', () => {
    it('answers OPTIONS with 204, the methods served and the help link', async () => {
      for (const [path, allow] of [
        ['/graphql', 'GET, HEAD, POST, OPTIONS'],
        ['/graphql/schema.graphql', 'GET, HEAD, OPTIONS'],
      ] as const) {
        const res = await fetch(server.url + path, { method: 'OPTIONS' });
        expect(res.status, path).toBe(204);
        expect(res.headers.get('allow')).toBe(allow);
        expect(res.headers.get('link')).toBe('</docs>; rel="help"');
        expect(await res.text()).toBe('');
      }
    });

    it('answers HEAD with the status and headers of the GET, without a body', async () => {
      for (const path of [
        `/graphql?query=${encodeURIComponent('{ credit_cards(page_size: 2) { items { id } } }')}`,
        '/graphql/schema.graphql',
      ]) {
        const get = await fetch(server.url + path, { headers: { accept: 'application/json' } });
        const head = await fetch(server.url + path, {
          method: 'HEAD',
          headers: { accept: 'application/json' },
        });
        expect(head.status, path).toBe(200);
        expect(get.status, path).toBe(200);
        expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
        expect(await head.text()).toBe('');
      }
    });

    it('answers a method it does not serve with the 405 envelope and Allow', async () => {
      for (const [path, method, allow] of [
        ['/graphql', 'DELETE', 'GET, HEAD, POST, OPTIONS'],
        ['/graphql', 'PUT', 'GET, HEAD, POST, OPTIONS'],
        ['/graphql/schema.graphql', 'POST', 'GET, HEAD, OPTIONS'],
      ] as const) {
        const res = await fetch(server.url + path, { method });
        const body = await res.json();
        expectErrorEnvelope(
          { status: res.status, body, headers: Object.fromEntries(res.headers) },
          405,
          { code: 'METHOD_NOT_ALLOWED' },
        );
        expect(res.headers.get('allow')).toBe(allow);
      }
    });

    it('answers a context function that throws with the 500 envelope', async () => {
      const app = express();
      app.use(
        '/graphql',
        graphqlEndpoint({
          schema,
          context: () => {
            throw new Error('the session store is down');
          },
        }),
      );
      app.use(errorHandler({ onError: () => undefined }));
      const other = await listen(app);
      try {
        const res = await fetch(
          `${other.url}/graphql?query=${encodeURIComponent('{ __typename }')}`,
        );
        const body = await res.json();
        expectErrorEnvelope(
          { status: res.status, body, headers: Object.fromEntries(res.headers) },
          500,
          { code: 'INTERNAL_SERVER_ERROR' },
        );
        expect(JSON.stringify(body)).not.toContain('session store');
      } finally {
        await other.close();
      }
    });

    it('links several help URLs in order, and refuses one that is not a URL', async () => {
      const app = express();
      app.use('/graphql', graphqlEndpoint({ schema, help: ['/docs', '/openapi.json'] }));
      const other = await listen(app);
      try {
        const res = await fetch(`${other.url}/graphql`, { method: 'OPTIONS' });
        expect(res.headers.get('link')).toBe('</docs>; rel="help", </openapi.json>; rel="help"');
      } finally {
        await other.close();
      }
      expect(() => graphqlEndpoint({ schema, help: 'a <b>' })).toThrow(/"help" must be a URL/);
      expect(() => graphqlEndpoint({ schema, help: [] })).toThrow(/at least one URL/);
    });
  });

  it('answers the spec’s introspection query', async () => {
    const res = await post({
      query: '{ __schema { types { kind name possibleTypes { name } } } }',
    });
    expect(res.status).toBe(200);
    const types = res.body.data.__schema.types as {
      kind: string;
      name: string;
      possibleTypes: { name: string }[] | null;
    }[];
    expect(types.find((t) => t.name === 'Resource')).toEqual({
      kind: 'INTERFACE',
      name: 'Resource',
      possibleTypes: [{ name: 'CreditCard' }],
    });
  });

  it('serves an SDL equal to the schema rebuilt from graphql-js’s full introspection query', async () => {
    const sdl = await (await fetch(`${server.url}/graphql/schema.graphql`)).text();
    const res = await post(
      { query: getIntrospectionQuery({ specifiedByUrl: true, schemaDescription: true }) },
      {},
    );
    expect(res.status).toBe(200);
    const rebuilt = buildClientSchema(res.body.data as IntrospectionQuery);
    expect(printSchema(rebuilt)).toBe(sdl);
    expect(sdl).toBe(printSchema(schema));
  });

  it('serves the SDL as UTF-8 text', async () => {
    const res = await fetch(`${server.url}/graphql/schema.graphql`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  describe('abusive queries', () => {
    it('serves a query as deep as maxDepth', async () => {
      const res = await post({ query: '{ credit_cards { items { id } } }' });
      expect(res.status).toBe(200);
    });

    it('refuses a query deeper than maxDepth with a GraphQL error, not a 5xx', async () => {
      const res = await post({ query: '{ credit_cards { items { billing_address { city } } } }' });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          message: 'The query is 4 fields deep; at most 3 are served.',
          extensions: { code: 'QUERY_TOO_DEEP' },
        }),
      ]);
    });

    it('counts depth through fragments and inline fragments', async () => {
      const res = await post({
        query:
          '{ ...A } fragment A on Query { credit_cards { ...B } } fragment B on CreditCardCollection { items { ... on CreditCard { links { rel } } } }',
      });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_DEEP');
    });

    it('does not count introspection towards the depth', async () => {
      const res = await post({
        query: '{ __type(name: "CreditCard") { fields { type { ofType { ofType { name } } } } } }',
      });
      expect(res.status).toBe(200);
    });

    it('refuses a query whose lists could return more fields than maxCost', async () => {
      const res = await post({
        query: '{ credit_cards(page_size: 100) { items { id payer_id type number } } }',
      });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_COSTLY' } });
    });

    it('refuses many aliases of one field by their cost', async () => {
      const aliases = Array.from(
        { length: 250 },
        (_, i) => `a${i}: credit_card(id: "CARD-1") { id }`,
      ).join(' ');
      const res = await post({ query: `{ ${aliases} }` });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY');
    });

    it('refuses fragments that each spread the next twice by their cost, in one pass', async () => {
      // 40 fragments, 2^40 copies of the last one's field: a walk that measured a fragment at
      // each of its spreads would visit every copy (this request would not be answered).
      const levels = 40;
      const fragments = Array.from(
        { length: levels },
        (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
      ).join(' ');
      const res = await post({
        query: `{ ...F0 } ${fragments} fragment F${levels} on Query { __typename }`,
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          message: `The query could return ${2 ** levels} fields; at most 300 are served.`,
          extensions: { code: 'QUERY_TOO_COSTLY' },
        }),
      ]);
    });

    it('refuses an introspection query that cycles through fields and their types', async () => {
      // Introspection is left out of maxDepth; each `fields { type { fields … } }` level
      // multiplies the answer by the fields of a type. graphql-js's MaxIntrospectionDepthRule
      // (16.9 and up, the peer range's floor) refuses it before it runs.
      const cycle = 'fields { type { '.repeat(6);
      const res = await post({
        query: `{ __schema { types { ${cycle} name ${'} } '.repeat(6)} } } }`,
      });
      expect(res.status).toBe(400);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors?.[0]?.message).toMatch(/introspection depth/i);
    });

    it('refuses a document with more tokens than the parser reads', async () => {
      const res = await post({ query: `{ ${'__typename '.repeat(6000)} }` });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.message).toMatch(/tokens/);
    });
  });

  it('passes every MUST and every SHOULD of graphql-http’s server audit', async () => {
    const failures: string[] = [];
    let audits = 0;
    for (const audit of serverAudits({ url: `${server.url}/graphql` })) {
      // The MAY audits are options the specification leaves open; MUST and SHOULD all hold.
      if (!/^(MUST|SHOULD)\b/.test(audit.name)) continue;
      audits++;
      const result = await audit.fn();
      if (result.status !== 'ok') failures.push(`${audit.name}: ${result.reason}`);
    }
    expect(audits).toBeGreaterThan(30);
    expect(failures).toEqual([]);
  });
});
