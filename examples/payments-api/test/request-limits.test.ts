/**
 * The OpenAPI document states the largest body the service reads and the longest URL it serves
 * (`x-request-limits`, the words of `info.description`, the 413 and 414 responses of every
 * operation), and the service holds to both numbers as the document gives them: every
 * documented operation takes a body of exactly the bound and refuses one byte more with the 413
 * envelope naming the bound, a URL of exactly the bound is served and one character more is the
 * 414 envelope; a refused request changes nothing.
 */
import { gzipSync } from 'node:zlib';
import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { OPENAPI_PATH } from '../src/description/docs.js';
import { LIMITS_DESCRIPTION, REQUEST_LIMITS } from '../src/description/request-limits.js';
import { createPaymentsServer, MAX_BODY_BYTES } from '../src/server-limits.js';
import { MAX_URL_LENGTH } from '../src/url-length.js';
import {
  type Json,
  operationsOf,
  PUBLIC_BASE_URL as publicBaseUrl,
  reachableOperations,
  snapshot,
} from './documented-operations.js';

/** `json` followed by spaces (JSON allows them) up to exactly `bytes` bytes. */
function padded(json: string, bytes: number): string {
  const length = Buffer.byteLength(json);
  expect(length).toBeLessThanOrEqual(bytes);
  return json + ' '.repeat(bytes - length);
}

describeEachExpress('the request limits the OpenAPI document states', (express) => {
  let document: Json;

  beforeAll(async () => {
    document = (await request(createApp({ express })).get(OPENAPI_PATH)).body;
  });

  describe('in the document', () => {
    it('gives the body and URL bounds as x-request-limits, and in words in info.description', () => {
      expect(document['x-request-limits']).toEqual({
        max_body_bytes: MAX_BODY_BYTES,
        max_url_length: MAX_URL_LENGTH,
      });
      expect(REQUEST_LIMITS).toEqual(document['x-request-limits']);
      expect(document.info.description).toContain(LIMITS_DESCRIPTION);
      expect(LIMITS_DESCRIPTION).toContain('102 400 bytes (100 KiB)');
      expect(LIMITS_DESCRIPTION).toContain('65 536 characters (64 KiB)');
    });

    it('lists 413 and 414 on every operation, their descriptions naming the bounds', () => {
      const { Error413, Error414 } = document.components.responses;
      expect(Error413['x-max-body-bytes']).toBe(MAX_BODY_BYTES);
      expect(Error413.description).toContain('102 400 bytes');
      expect(Error414['x-max-url-length']).toBe(MAX_URL_LENGTH);
      expect(Error414.description).toContain(String(MAX_URL_LENGTH));
      for (const { verb, path, operation } of operationsOf(document)) {
        expect(operation.responses['413'], `${verb} ${path}`).toEqual({
          $ref: '#/components/responses/Error413',
        });
        expect(operation.responses['414'], `${verb} ${path}`).toEqual({
          $ref: '#/components/responses/Error414',
        });
        const statuses = Object.keys(operation.responses);
        expect(statuses, `${verb} ${path}: in status order`).toEqual(
          [...statuses].sort((a, b) => Number(a) - Number(b)),
        );
      }
    });

    it('states the bound on every request body', () => {
      let bodies = 0;
      for (const { verb, path, operation } of operationsOf(document)) {
        if (operation.requestBody === undefined) continue;
        bodies++;
        expect(operation.requestBody['x-max-body-bytes'], `${verb} ${path}`).toBe(MAX_BODY_BYTES);
        expect(operation.requestBody.description, `${verb} ${path}`).toContain(
          '102 400 bytes (100 KiB)',
        );
      }
      // Creates, PUTs, PATCHes, the two actions, the search and the three complex operations.
      expect(bodies).toBeGreaterThanOrEqual(16);
    });
  });

  describe('held to by the service', () => {
    it('takes a body of exactly max_body_bytes on every operation that takes a body', async () => {
      const app = createApp({ express, publicBaseUrl });
      const maxBytes = document['x-request-limits'].max_body_bytes as number;
      let sent = 0;
      for (const { verb, url, operation } of reachableOperations(document)) {
        if (operation.requestBody === undefined) continue;
        let body: string;
        let type = 'application/json';
        if (verb === 'put') body = JSON.stringify((await request(app).get(url)).body);
        else if (verb === 'patch') {
          body = '[]';
          type = 'application/json-patch+json';
        } else body = JSON.stringify(operation.requestBody.content['application/json'].example);
        const res = await request(app)
          [verb](url)
          .set('Content-Type', type)
          .send(padded(body, maxBytes));
        expect(res.status, `${verb} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        sent++;
      }
      expect(sent).toBeGreaterThanOrEqual(14);
    });

    it('refuses one byte more with the 413 envelope naming the bound, on every operation, changing nothing', async () => {
      const app = createApp({ express, publicBaseUrl });
      const maxBytes = document['x-request-limits'].max_body_bytes as number;
      const before = await snapshot(app, document);
      for (const { verb, url } of reachableOperations(document)) {
        // A JSON body is read whatever the method: a DELETE with one over the bound deletes nothing.
        for (const type of verb === 'patch'
          ? ['application/json-patch+json', 'application/merge-patch+json']
          : ['application/json']) {
          const body = padded(
            verb === 'patch' && type.includes('json-patch') ? '[]' : '{}',
            maxBytes + 1,
          );
          const res = await request(app)[verb](url).set('Content-Type', type).send(body);
          expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
          expect(res.body.error.message).toBe(`The request body is larger than ${maxBytes} bytes.`);
          expect(res.body.error.innererror).toMatchObject({
            code: 'BODY_TOO_LARGE',
            max_bytes: maxBytes,
          });
        }
      }
      expect(await snapshot(app, document)).toBe(before);
    });

    it('counts a compressed body once inflated: a small gzip body inflating past the bound is the same 413', async () => {
      const app = createApp({ express, publicBaseUrl });
      const before = await snapshot(app, document);
      const create = JSON.stringify({ merchant_customer_id: 'zip', merchant_id: 'M-1' });
      const running = await listen(app);
      try {
        // fetch, not supertest: superagent serialises a Buffer sent as JSON.
        const send = (json: string) =>
          fetch(`${running.url}/v1/customers/customers`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
            body: gzipSync(json),
          });
        const refused = await send(padded(create, MAX_BODY_BYTES + 1));
        const envelope = {
          status: refused.status,
          headers: { 'content-type': refused.headers.get('content-type') ?? undefined },
          body: (await refused.json()) as Json,
        };
        expectErrorEnvelope(envelope, 413, { code: 'PAYLOAD_TOO_LARGE' });
        expect(envelope.body.error.innererror).toMatchObject({
          code: 'BODY_TOO_LARGE',
          max_bytes: MAX_BODY_BYTES,
        });
        expect(await snapshot(app, document)).toBe(before);
        // At the bound, inflated, it is read and creates the customer.
        expect((await send(padded(create, MAX_BODY_BYTES))).status).toBe(201);
      } finally {
        await running.close();
      }
    });

    it('answers a body it cannot decode with the 415 envelope its document lists, on every operation, changing nothing', async () => {
      // A JSON body is read whatever the method, so an unknown coding or charset is refused
      // whatever the method too: the document lists 415 wherever the service answers it.
      const app = createApp({ express, publicBaseUrl });
      const before = await snapshot(app, document);
      for (const { verb, path, url, operation } of reachableOperations(document)) {
        const type = verb === 'patch' ? 'application/merge-patch+json' : 'application/json';
        for (const [header, value, contentType] of [
          ['Content-Encoding', 'zstd', type],
          ['Content-Type', `${type}; charset=koi8-r`, `${type}; charset=koi8-r`],
        ] as const) {
          const res = await request(app)
            [verb](url)
            .set('Content-Type', contentType)
            .set(header, value)
            .send('{}');
          expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE' });
          expect(Object.keys(operation.responses), `${verb} ${path}`).toContain('415');
        }
      }
      expect(await snapshot(app, document)).toBe(before);
    });

    it('serves a URL of exactly max_url_length and answers one character more with the 414 envelope, on every operation, changing nothing', async () => {
      const app = createApp({ express, publicBaseUrl });
      const maxLength = document['x-request-limits'].max_url_length as number;
      const before = await snapshot(app, document);
      // The example's own server: Node's default maxHeaderSize (16 KiB) would refuse long URLs
      // with a 431 before the app sees them.
      const running = await listen(createPaymentsServer(app));
      try {
        for (const { verb, path, url } of reachableOperations(document)) {
          const glue = url.includes('?') ? '&' : '?';
          const filler = (length: number) =>
            `${url}${glue}x=${'a'.repeat(length - url.length - glue.length - 2)}`;
          const tooLong = filler(maxLength + 1);
          expect(tooLong.length).toBe(maxLength + 1);
          const refused = await request(running.url)[verb](tooLong);
          expectErrorEnvelope(refused, 414, { code: 'URI_TOO_LONG' });
          expect(refused.body.error.innererror).toMatchObject({ max_length: maxLength });
          if (verb === 'get') {
            // Served: whatever the operation answers an unknown parameter, it is not a 414.
            const served = await request(running.url).get(filler(maxLength));
            expect(served.status, `${path}: ${JSON.stringify(served.body)}`).not.toBe(414);
            expect(served.status).toBeLessThan(500);
          }
        }
      } finally {
        await running.close();
      }
      expect(await snapshot(app, document)).toBe(before);
    });
  });
});
