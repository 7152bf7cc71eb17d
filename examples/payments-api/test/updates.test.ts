import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const PATCH_TYPE = 'application/json-patch+json';

describeEachExpress('updates with ETags', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });
  const cardPath = '/v1/vault/credit-cards/CARD-SEED1';

  describe('cards', () => {
    it('GET sends a strong ETag and answers 304 to If-None-Match with it', async () => {
      const server = app();
      const read = await request(server).get(cardPath);
      expect(read.headers.etag).toMatch(/^"[^"]+"$/);
      const again = await request(server)
        .get(cardPath)
        .set('If-None-Match', String(read.headers.etag));
      expect(again.status).toBe(304);
      expect(again.headers.etag).toBe(read.headers.etag);
    });

    it('PATCH answers 204 with the new ETag, the one the next GET sends', async () => {
      const server = app();
      const res = await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/first_name', value: 'Elizabeth' }]);
      expect(res.status).toBe(204);
      const read = await request(server).get(cardPath);
      expect(read.body.first_name).toBe('Elizabeth');
      expect(read.headers.etag).toBe(res.headers.etag);
      expect(read.body.update_time).not.toBe(read.body.create_time);
    });

    it('PATCH honours Prefer: return=representation with the masked card', async () => {
      const res = await request(app())
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .set('Prefer', 'return=representation')
        .send([{ op: 'replace', path: '/expire_year', value: '2033' }]);
      expect(res.status).toBe(200);
      expect(res.body.number).toBe('xxxxxxxxxxxx0331');
      expect(res.body.valid_until).toBe('2033-11-30T23:59:59Z');
      expect(res.headers['preference-applied']).toBe('return=representation');
    });

    it('PATCH with a stale If-Match answers 412 and changes nothing', async () => {
      const server = app();
      const read = await request(server).get(cardPath);
      await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/last_name', value: 'First' }]);
      const stale = await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .set('If-Match', String(read.headers.etag))
        .send([{ op: 'replace', path: '/last_name', value: 'Second' }]);
      expectErrorEnvelope(stale, 412, { code: 'PRECONDITION_FAILED' });
      expect(stale.headers.etag).toBeUndefined();
      const after = await request(server).get(cardPath);
      expect(after.body.last_name).toBe('First');
    });

    it('refuses a change of the number after create with 400 READ_ONLY_FIELD', async () => {
      const res = await request(app())
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/number', value: '4111111111111111' }]);
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'number' });
    });

    it('PUT replaces: unsent properties are cleared, the masked number is accepted', async () => {
      const server = app();
      const read = await request(server).get(cardPath);
      const { first_name: _dropped, billing_address: _alsoDropped, ...rest } = read.body;
      const res = await request(server)
        .put(cardPath)
        .send({ ...rest, last_name: 'Replaced' });
      expect(res.status).toBe(204);
      const after = await request(server).get(cardPath);
      expect(after.body.first_name).toBeUndefined();
      expect(after.body.billing_address).toBeUndefined();
      expect(after.body.last_name).toBe('Replaced');
      expect(after.body.number).toBe(read.body.number);
      expect(after.body.create_time).toBe(read.body.create_time);
    });

    it('PUT with another number answers 400 READ_ONLY_FIELD', async () => {
      const server = app();
      const read = await request(server).get(cardPath);
      const res = await request(server)
        .put(cardPath)
        .send({ ...read.body, number: '4111111111111111' });
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'number' });
    });

    it('PUT of a missing card answers 404 (cards take no client ids)', async () => {
      const server = app();
      const { id: _id, ...read } = (await request(server).get(cardPath)).body;
      const res = await request(server).put('/v1/vault/credit-cards/CARD-MINE').send(read);
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });

    it('PATCH of a missing card answers 409 (no upsert)', async () => {
      const res = await request(app())
        .patch('/v1/vault/credit-cards/CARD-NOPE')
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/first_name', value: 'X' }]);
      expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
    });

    it('PATCH with a form body answers 415 with Accept-Patch', async () => {
      const res = await request(app())
        .patch(cardPath)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('first_name=X');
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(res.headers['accept-patch']).toMatch(/application\/json-patch\+json/);
    });

    it('DELETE answers 204, and 204 again when repeated', async () => {
      const server = app();
      expect((await request(server).delete(cardPath)).status).toBe(204);
      expect((await request(server).delete(cardPath)).status).toBe(204);
      expect((await request(server).get(cardPath)).status).toBe(404);
    });
  });

  describe('customers', () => {
    const path = '/v1/customers/customers/CUST-SEED1';

    it('PUT answers 204 and PATCH with merge patch answers 204', async () => {
      const server = app();
      const put = await request(server)
        .put(path)
        .send({ merchant_customer_id: 'mc-1', merchant_id: 'M-2', first_name: 'Ann' });
      expect(put.status).toBe(204);
      const merge = await request(server)
        .patch(path)
        .set('Content-Type', 'application/merge-patch+json')
        .send({ last_name: 'Lee' });
      expect(merge.status).toBe(204);
      const read = await request(server).get(path);
      expect(read.body).toMatchObject({ merchant_id: 'M-2', first_name: 'Ann', last_name: 'Lee' });
    });

    it('PUT without a required field answers 400 naming it', async () => {
      const res = await request(app()).put(path).send({ merchant_id: 'M-2' });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'merchant_customer_id' });
    });
  });

  describe('webhooks (upsert by PATCH)', () => {
    const add = (url: string) => [
      { op: 'add', path: '/url', value: url },
      { op: 'add', path: '/event_types', value: [{ name: 'PAYMENT.SALE.COMPLETED' }] },
    ];

    it('PATCH of a missing webhook creates it: 201 with Location', async () => {
      const server = app();
      const res = await request(server)
        .patch('/v1/notifications/webhooks/WH-NEW')
        .set('Content-Type', PATCH_TYPE)
        .send(add('https://hooks.example.com/new'));
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe('http://api.test/v1/notifications/webhooks/WH-NEW');
      const read = await request(server).get('/v1/notifications/webhooks/WH-NEW');
      expect(read.body.url).toBe('https://hooks.example.com/new');
    });

    it('PATCH with If-Match never creates: 412', async () => {
      const res = await request(app())
        .patch('/v1/notifications/webhooks/WH-NEW')
        .set('Content-Type', PATCH_TYPE)
        .set('If-Match', '"abc"')
        .send(add('https://hooks.example.com/new'));
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED' });
    });

    it('PATCH with If-None-Match: * never updates: 412', async () => {
      const res = await request(app())
        .patch('/v1/notifications/webhooks/WH-SEED1')
        .set('Content-Type', PATCH_TYPE)
        .set('If-None-Match', '*')
        .send([{ op: 'replace', path: '/url', value: 'https://hooks.example.com/other' }]);
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED' });
    });

    it('PATCH of the url of an existing webhook answers 204', async () => {
      const res = await request(app())
        .patch('/v1/notifications/webhooks/WH-SEED1')
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/url', value: 'https://hooks.example.com/v2' }]);
      expect(res.status).toBe(204);
    });

    it('refuses an upsert id with characters outside the id alphabet', async () => {
      const res = await request(app())
        .patch('/v1/notifications/webhooks/%3Cscript%3E')
        .set('Content-Type', PATCH_TYPE)
        .send(add('https://hooks.example.com/x'));
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'webhook_id' });
    });
  });

  describe('billing agreements', () => {
    const path = '/v1/payments/billing-agreements/AGREEMENT-SEED01';

    it('PATCH of description and shipping_address answers 204', async () => {
      const server = app();
      const res = await request(server)
        .patch(path)
        .set('Content-Type', PATCH_TYPE)
        .send([
          { op: 'replace', path: '/description', value: 'Annual plan' },
          {
            op: 'add',
            path: '/shipping_address',
            value: { line1: '1 Main St', city: 'Austin', country_code: 'US' },
          },
        ]);
      expect(res.status).toBe(204);
      const read = await request(server).get(path);
      expect(read.body).toMatchObject({ description: 'Annual plan', state: 'ACTIVE' });
    });

    it('refuses a change of state by PATCH (the suspend action changes it)', async () => {
      const res = await request(app())
        .patch(path)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/state', value: 'SUSPENDED' }]);
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'state' });
    });
  });

  // A write that leaves a resource equal changes neither update_time nor the ETag (see
  // json-patch-update's README), so other clients' If-Match still holds.
  describe('key order', () => {
    // Clients must not depend on it (the conventions, "Error body"), but a record that reads
    // back with its keys moved after every update looks changed to a person or a diff.
    it.each([
      ['a card', '/v1/vault/credit-cards/CARD-SEED1', { first_name: 'Liz' }],
      ['a customer', '/v1/customers/customers/CUST-SEED1', { first_name: 'Liz' }],
      ['a webhook', '/v1/notifications/webhooks/WH-SEED1', { url: 'https://hooks.test/x' }],
      ['an agreement', '/v1/payments/billing-agreements/AGREEMENT-SEED01', { description: 'x' }],
    ])(
      'keeps %s’s keys in the order it was created with, after a PATCH and a PUT',
      async (_, path, change) => {
        const server = app();
        const keys = async () => Object.keys((await request(server).get(path)).body);
        const created = await keys();
        expect(created[0]).toBe('id');
        const patched = await request(server)
          .patch(path)
          .set('Content-Type', 'application/merge-patch+json')
          .send(change);
        expect(patched.status).toBe(204);
        expect(await keys()).toEqual(created);
        if (!path.includes('billing-agreements') && !path.includes('webhooks')) {
          const read = (await request(server).get(path)).body;
          expect(
            (
              await request(server)
                .put(path)
                .send({ ...read, first_name: 'Max' })
            ).status,
          ).toBe(204);
          expect(await keys()).toEqual(created);
        }
      },
    );
  });

  describe('writes that change nothing', () => {
    const paths = [
      cardPath,
      '/v1/customers/customers/CUST-SEED1',
      '/v1/notifications/webhooks/WH-SEED1',
      '/v1/payments/billing-agreements/AGREEMENT-SEED01',
    ];
    const bodies: [string, string, string][] = [
      ['an empty JSON Patch', PATCH_TYPE, '[]'],
      ['an empty merge patch', 'application/merge-patch+json', '{}'],
    ];

    describe.each(paths)('PATCH of %s', (path) => {
      it.each(bodies)(
        'with %s answers 204 and keeps update_time and the ETag',
        async (_n, type, body) => {
          const server = app();
          const before = await request(server).get(path);
          expect(before.status).toBe(200);
          const res = await request(server)
            .patch(path)
            .set('Content-Type', type)
            .set('If-Match', String(before.headers.etag))
            .send(body);
          expect(res.status).toBe(204);
          expect(res.headers.etag).toBe(before.headers.etag);
          const after = await request(server).get(path);
          expect(after.headers.etag).toBe(before.headers.etag);
          expect(after.body.update_time).toBe(before.body.update_time);
        },
      );
    });

    it('PATCH setting a field to its current value keeps the ETag', async () => {
      const server = app();
      const before = await request(server).get(cardPath);
      const res = await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'replace', path: '/first_name', value: before.body.first_name }]);
      expect(res.status).toBe(204);
      expect(res.headers.etag).toBe(before.headers.etag);
    });

    it('PUT of the representation a GET sent keeps update_time and the ETag', async () => {
      const server = app();
      const path = '/v1/customers/customers/CUST-SEED1';
      const before = await request(server).get(path);
      const { links: _links, ...sent } = before.body;
      const res = await request(server)
        .put(path)
        .set('If-Match', String(before.headers.etag))
        .send(sent);
      expect(res.status).toBe(204);
      const after = await request(server).get(path);
      expect(after.headers.etag).toBe(before.headers.etag);
      expect(after.body.update_time).toBe(before.body.update_time);
    });
  });
});
