/**
 * The paging arguments of list, sub-collection and search fields are held to the bounds the
 * OpenAPI document states for the same REST list (`page` from 1, `page_size` from 1 to 100,
 * `(page − 1) × page_size` within the list's `maxOffset`), as collection-pagination holds the
 * REST list to them: a resolver is never asked for a page the REST route would refuse.
 */
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, listen, type RunningServer } from '@resourceful/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { graphqlEndpoint, graphqlSchema, type ListArguments } from '../src/index.js';
import { api, arrayResolvers, cardListApi, sampleCards } from './fixtures.js';

const shallow = cardListApi({ maxOffset: 1000 });

describeEachExpress('paging arguments', (express) => {
  let server: RunningServer;
  const { calls, resolvers } = arrayResolvers(sampleCards(5));
  const shallowCalls: ListArguments[] = [];

  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.use('/graphql', graphqlEndpoint({ schema: graphqlSchema(api, { resolvers }) }));
    const shallowSchema = graphqlSchema(shallow, {
      resolvers: {
        CreditCard: {
          list: (args: ListArguments) => {
            shallowCalls.push(args);
            return { items: [], links: [] };
          },
        },
      },
    });
    app.use('/shallow', graphqlEndpoint({ schema: shallowSchema }));
    app.use(errorHandler({ onError: () => undefined }));
    server = await listen(app);
  });
  afterAll(() => server.close());

  async function query(path: string, text: string) {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: text }),
    });
    return (await res.json()) as {
      data?: unknown;
      errors?: { message: string; extensions?: Record<string, unknown> }[];
    };
  }

  for (const [args, target] of [
    ['page_size: 1000000', 'page_size'],
    ['page_size: 101', 'page_size'],
    ['page_size: 0', 'page_size'],
    ['page_size: -5', 'page_size'],
    ['page: 0', 'page'],
    ['page: -1', 'page'],
  ] as const) {
    it(`refuses credit_cards(${args}) as the REST list refuses it, naming ${target}, without asking the resolver`, async () => {
      const before = calls.length;
      const body = await query('/graphql', `{ credit_cards(${args}) { items { id } } }`);
      expect(body.data).toBeNull();
      expect(body.errors).toEqual([
        expect.objectContaining({
          extensions: expect.objectContaining({
            code: 'INVALID_REQUEST',
            target,
            innererror: { code: 'INVALID_PARAMETER' },
            http: { status: 400 },
          }),
        }),
      ]);
      expect(calls.length).toBe(before);
    });
  }

  it('serves a page_size of 100, the largest the OpenAPI document states', async () => {
    const body = await query('/graphql', '{ credit_cards(page_size: 100) { items { id } } }');
    expect(body.errors).toBeUndefined();
    expect(calls.at(-1)).toMatchObject({ page: 1, page_size: 100 });
  });

  it('refuses a page whose first item lies past the list’s maxOffset, naming page', async () => {
    const deep = await query(
      '/shallow',
      '{ credit_cards(page: 102, page_size: 10) { items { id } } }',
    );
    expect(deep.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', target: 'page' });
    const last = await query(
      '/shallow',
      '{ credit_cards(page: 101, page_size: 10) { items { id } } }',
    );
    expect(last.errors).toBeUndefined();
    expect(shallowCalls).toEqual([expect.objectContaining({ page: 101, page_size: 10 })]);
  });
});
