import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  parseRawResponses,
  rawExchange,
} from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

// One rule for request bodies on every write path (docs/conventions.md, "Payload format"):
// hostile keys refused, 32 levels of nesting at most, unknown fields refused, each a 400 naming
// the field, and nothing changed. Raw bodies are sent as text: JSON.stringify of an object
// literal drops a `__proto__` key.

const CARD = '/v1/vault/credit-cards/CARD-SEED1';
const CARDS = '/v1/vault/credit-cards';
const AGREEMENT = '/v1/payments/billing-agreements/AGREEMENT-SEED01';
const JSON_TYPE = 'application/json';
const PATCH_TYPE = 'application/json-patch+json';
const MERGE_TYPE = 'application/merge-patch+json';
const DEEP = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;

const newCard = {
  payer_id: 'user-77',
  type: 'visa',
  number: '4417119669820331',
  expire_month: '11',
  expire_year: '2030',
  first_name: 'Ann',
};

type App = ReturnType<typeof createApp>;

/** A write as method, path, content type and a raw body built around an injected fragment. */
interface WritePath {
  name: string;
  send: (server: App, raw: string) => request.Test;
}

const cardFields = JSON.stringify({ first_name: 'Ann', last_name: 'Lee' }).slice(1, -1);
const fullCard = JSON.stringify(newCard).slice(1, -1);

/** The paths, each taking a member `"key": value` to inject at the top level of its body. */
const WRITE_PATHS: (WritePath & { inject: (member: string) => string })[] = [
  {
    name: 'POST create',
    inject: (member) => `{${fullCard},${member}}`,
    send: (server, raw) => request(server).post(CARDS).set('Content-Type', JSON_TYPE).send(raw),
  },
  {
    name: 'PUT',
    inject: (member) =>
      `{"payer_id":"user-1","type":"visa","number":"xxxxxxxxxxxx0331","expire_month":"11","expire_year":"2030",${member}}`,
    send: (server, raw) => request(server).put(CARD).set('Content-Type', JSON_TYPE).send(raw),
  },
  {
    name: 'merge patch',
    inject: (member) => `{${cardFields},${member}}`,
    send: (server, raw) => request(server).patch(CARD).set('Content-Type', MERGE_TYPE).send(raw),
  },
  {
    name: 'JSON Patch',
    inject: (member) => {
      const [key, ...rest] = member.split(':');
      return `[{"op":"add","path":"/billing_address","value":{"line1":"1 Main St","city":"Austin","country_code":"US",${key}:${rest.join(':')}}}]`;
    },
    send: (server, raw) => request(server).patch(CARD).set('Content-Type', PATCH_TYPE).send(raw),
  },
];

describeEachExpress('request bodies: one rule on every write path', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  /** What a client can see of the cards: the seeded card and the list, to compare after. */
  async function snapshot(server: App) {
    const card = await request(server).get(CARD);
    const list = await request(server).get(`${CARDS}?page_size=100`);
    return {
      card: card.body,
      etag: card.headers.etag,
      ids: list.body.items.map((c: { id: string }) => c.id),
    };
  }

  describe.each(WRITE_PATHS)('$name', ({ name, inject, send }) => {
    it.each([
      ['__proto__', '"__proto__":{"polluted":true}'],
      ['constructor', '"constructor":{"prototype":{"polluted":true}}'],
      ['prototype', '"prototype":{"polluted":true}'],
    ])('answers 400 FORBIDDEN_KEY to a %s key and changes nothing', async (key, member) => {
      const server = app();
      const before = await snapshot(server);
      const res = await send(server, inject(member));
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expect(res.body.error.innererror).toMatchObject({ code: 'FORBIDDEN_KEY' });
      expect(String(res.body.error.target)).toMatch(new RegExp(`(^|[.\\]])${key}$`));
      expect(await snapshot(server)).toEqual(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('answers 400 TOO_DEEP to a value nested 30 000 levels and changes nothing', async () => {
      const server = app();
      const before = await snapshot(server);
      const res = await send(server, inject(`"deep":${DEEP}`));
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expect(res.body.error.innererror).toMatchObject({ code: 'TOO_DEEP' });
      expect(await snapshot(server)).toEqual(before);
    });

    it('answers 400 UNKNOWN_FIELD naming a field the resource does not have, changing nothing', async () => {
      const server = app();
      const before = await snapshot(server);
      const res = await send(server, inject('"nickname":"x"'));
      const target = name === 'JSON Patch' ? 'billing_address.nickname' : 'nickname';
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target });
      expect(res.body.error.innererror).toMatchObject({ code: 'UNKNOWN_FIELD' });
      expect(res.body.error.details).toEqual([
        expect.objectContaining({ code: 'UNKNOWN_FIELD', target }),
      ]);
      expect(await snapshot(server)).toEqual(before);
    });
  });

  describe('JSON Patch (RFC 6902 §5: a failed operation fails the whole patch)', () => {
    it('answers 400 to add /nickname instead of a 204 that stored nothing', async () => {
      const server = app();
      const before = await snapshot(server);
      const res = await request(server)
        .patch(CARD)
        .set('Content-Type', PATCH_TYPE)
        .send(
          JSON.stringify([
            { op: 'replace', path: '/first_name', value: 'Changed' },
            { op: 'add', path: '/nickname', value: 'x' },
          ]),
        );
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'nickname' });
      expect(res.body.error.details[0].message).toContain('/nickname');
      expect(await snapshot(server)).toEqual(before);
    });

    it('answers 400 to a copy or move onto a member the card does not have', async () => {
      const server = app();
      const before = await snapshot(server);
      for (const op of ['copy', 'move']) {
        const res = await request(server)
          .patch(CARD)
          .set('Content-Type', PATCH_TYPE)
          .send(JSON.stringify([{ op, from: '/first_name', path: '/alias' }]));
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'alias' });
      }
      expect(await snapshot(server)).toEqual(before);
    });
  });

  describe('what a client read may be sent back', () => {
    it('a PUT of the GET body (links, masked number, times) answers 204', async () => {
      const server = app();
      const read = await request(server).get(CARD);
      expect(read.body.links.length).toBeGreaterThan(0);
      const res = await request(server)
        .put(CARD)
        .send({ ...read.body, first_name: 'Read-Back' });
      expect(res.status).toBe(204);
      expect((await request(server).get(CARD)).body.first_name).toBe('Read-Back');
    });

    it('a create ignores the id and service-set fields it may carry', async () => {
      const res = await request(app())
        .post(CARDS)
        .send({ ...newCard, id: 'CARD-MINE', state: 'ok', links: [] });
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe('CARD-MINE');
    });
  });

  describe('two Content-Type lines (RFC 9110 §5.3: a singleton field, a list is invalid)', () => {
    const writes: [string, string, string][] = [
      ['POST create', `POST ${CARDS}`, JSON.stringify(newCard)],
      ['PUT', `PUT ${CARD}`, JSON.stringify({ ...newCard, number: 'xxxxxxxxxxxx0331' })],
      ['PATCH', `PATCH ${CARD}`, '{"first_name":"Two"}'],
      ['an action', `POST ${AGREEMENT}/suspend`, '{"note":"two types"}'],
      ['a GraphQL mutation', 'POST /graphql', '{"query":"{ __typename }"}'],
    ];

    it.each(writes)(
      'answers 400 naming Content-Type to %s, whichever type comes first, and changes nothing',
      async (_, line, body) => {
        const server = app();
        const before = await snapshot(server);
        const running = await listen(server);
        try {
          for (const types of [
            [JSON_TYPE, 'text/plain'],
            ['text/plain', JSON_TYPE],
            [JSON_TYPE, JSON_TYPE],
            [MERGE_TYPE, PATCH_TYPE],
          ]) {
            const exchange = await rawExchange(
              running.port,
              `${line} HTTP/1.1\r\nHost: x\r\n${types.map((type, i) => `${i === 0 ? 'Content-Type' : 'content-type'}: ${type}\r\n`).join('')}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
            );
            const [response] = parseRawResponses(exchange.text);
            expect(response?.status, types.join(' + ')).toBe(400);
            expect(JSON.parse(response?.body ?? '').error).toMatchObject({
              code: 'INVALID_REQUEST',
              target: 'Content-Type',
              innererror: { code: 'REPEATED_CONTENT_TYPE' },
            });
          }
        } finally {
          await running.close();
        }
        expect(await snapshot(server)).toEqual(before);
        expect((await request(server).get(`${AGREEMENT}/history`)).body.items).toEqual([]);
      },
    );

    it('leaves a request without a body alone: its Content-Type describes nothing', async () => {
      const running = await listen(app());
      try {
        const exchange = await rawExchange(
          running.port,
          `GET ${CARD} HTTP/1.1\r\nHost: x\r\nContent-Type: a/b\r\nContent-Type: c/d\r\nConnection: close\r\n\r\n`,
        );
        expect(parseRawResponses(exchange.text)[0]?.status).toBe(200);
      } finally {
        await running.close();
      }
    });
  });

  describe('actions', () => {
    it.each([
      ['a __proto__ key', '{"__proto__":{"note":"x"}}', 'INVALID_REQUEST', '__proto__'],
      ['an unknown field', '{"nickname":"x"}', 'VALIDATION_ERROR', 'nickname'],
      ['a value 30 000 levels deep', `{"note":${DEEP}}`, 'INVALID_REQUEST', undefined],
    ])('suspend answers 400 to %s and records nothing', async (_, raw, code, target) => {
      const server = app();
      const res = await request(server)
        .post(`${AGREEMENT}/suspend`)
        .set('Content-Type', JSON_TYPE)
        .send(raw);
      expectErrorEnvelope(res, 400, { code, ...(target ? { target } : {}) });
      expect((await request(server).get(AGREEMENT)).body.state).toBe('ACTIVE');
      expect((await request(server).get(`${AGREEMENT}/history`)).body.items).toEqual([]);
    });

    it('a risk decision answers 400 naming an unknown field and creates nothing', async () => {
      const server = app();
      const res = await request(server)
        .post('/v1/risk/decisions')
        .send({ code: 'R-1', nickname: 'x' });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'nickname' });
      const evaluated = await request(server)
        .post('/v1/risk/evaluate')
        .set('Content-Type', JSON_TYPE)
        .send('{"code":"R-1","__proto__":{"code":"BAD"}}');
      expectErrorEnvelope(evaluated, 400, { code: 'INVALID_REQUEST', target: '__proto__' });
    });
  });
});
