import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const PATCH_TYPE = 'application/json-patch+json';
const cardPath = '/v1/vault/credit-cards/CARD-SEED1';

describeEachExpress('one ETag for reads and writes', (express) => {
  describe("with app.set('json spaces', 2)", () => {
    function app() {
      const server = createApp({ express, publicBaseUrl: 'http://api.test' });
      server.set('json spaces', 2);
      return server;
    }

    it('a PATCH carrying the tag the GET sent answers 204', async () => {
      const server = app();
      const read = await request(server).get(cardPath);
      expect(read.text).toContain('\n  "id"');
      const write = await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .set('If-Match', String(read.headers.etag))
        .send([{ op: 'replace', path: '/first_name', value: 'Ada' }]);
      expect(write.status).toBe(204);
      const again = await request(server).get(cardPath);
      expect(again.headers.etag).toBe(write.headers.etag);
    });

    it('a DELETE carrying the tag the GET sent answers 204', async () => {
      const server = app();
      const read = await request(server).get(cardPath);
      const removed = await request(server)
        .delete(cardPath)
        .set('If-Match', String(read.headers.etag));
      expect(removed.status).toBe(204);
    });

    it('a GET with If-None-Match of the tag the PATCH answered is a 304', async () => {
      const server = app();
      const write = await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/first_name', value: 'Grace' }]);
      const read = await request(server)
        .get(cardPath)
        .set('If-None-Match', String(write.headers.etag));
      expect(read.status).toBe(304);
    });
  });
});
