import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  type RunningServer,
} from '@resourceful/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES, graphqlEndpoint, graphqlSchema } from '../src/index.js';
import { api, arrayResolvers, sampleCards } from './fixtures.js';

const schema = graphqlSchema(api, { resolvers: arrayResolvers(sampleCards(2)).resolvers });

/** A query document of about `bytes` bytes: a field padded with a comment. */
function queryOf(bytes: number): string {
  return `{ credit_card(id: "CARD-1") { id } }\n#${'x'.repeat(bytes)}`;
}

describeEachExpress('graphqlEndpoint without a body parser', (express) => {
  let server: RunningServer;

  beforeAll(async () => {
    const app = express();
    // No express.json(): the endpoint reads the body itself.
    app.use('/graphql', graphqlEndpoint({ schema, maxBodyBytes: 1024 }));
    app.use(errorHandler({ onError: () => undefined }));
    server = await listen(app);
  });
  afterAll(() => server.close());

  function post(body: string | ReadableStream<Uint8Array>) {
    return fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      // A stream is sent chunked, without Content-Length.
      duplex: 'half',
    } as RequestInit);
  }

  /** A body sent as these chunks, one write each. */
  function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
    const left = [...chunks];
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = left.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
  }

  it('answers a body within maxBodyBytes', async () => {
    const res = await post(JSON.stringify({ query: queryOf(800) }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { credit_card: { id: 'CARD-1' } } });
  });

  it('reads a UTF-8 body sent in chunks split inside a character', async () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({ query: '{ credit_card(id: "CARD-é€") { id } }' }),
    );
    // The cut falls between the two bytes of "é".
    const cut = bytes.indexOf(0xc3) + 1;
    const res = await post(streamOf([bytes.slice(0, cut), bytes.slice(cut)]));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { credit_card: null } });
  });

  it('answers a longer body with the 413 envelope', async () => {
    const res = await post(JSON.stringify({ query: queryOf(4096) }));
    expectErrorEnvelope(
      { status: res.status, body: await res.json(), headers: Object.fromEntries(res.headers) },
      413,
      { code: 'PAYLOAD_TOO_LARGE' },
    );
  });

  it('answers a longer body sent without Content-Length (chunked) with the 413 envelope', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ query: queryOf(4096) }));
    const res = await post(streamOf([body.slice(0, 512), body.slice(512)]));
    expectErrorEnvelope(
      { status: res.status, body: await res.json(), headers: Object.fromEntries(res.headers) },
      413,
      { code: 'PAYLOAD_TOO_LARGE' },
    );
  });

  it('reads 100 kB unless told otherwise', () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(100 * 1024);
  });
});
