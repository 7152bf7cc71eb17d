import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import fc from 'fast-check';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ID_PATTERN, parseRequestId, readRequestId } from '../src/index.js';
import { startApp } from './helpers.js';

describe('parseRequestId', () => {
  it.each([
    ['8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['"8e03978e-40d5"', '8e03978e-40d5'],
    ['01ARZ3NDEKTSV4RRFFQ69G5FAV', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['abc+/=', 'abc+/='],
    ['  padded  ', 'padded'],
  ])('accepts %j', (value, id) => {
    expect(parseRequestId(value)).toBe(id);
  });

  it.each([
    '',
    '""',
    '"',
    'has space',
    'a,b',
    'quote"inside',
    'back\\slash',
    'tab\there',
    'ünïcode',
    '<script>',
    'x'.repeat(256),
  ])('refuses %j', (value) => {
    expect(parseRequestId(value)).toBeUndefined();
  });

  it('honours a custom maximum length', () => {
    expect(parseRequestId('abcd', 3)).toBeUndefined();
    expect(parseRequestId('abc', 3)).toBe('abc');
  });

  it('never returns a value outside the allowed characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        const id = parseRequestId(value);
        if (id !== undefined) {
          expect(id).toMatch(ID_PATTERN);
          expect(id.length).toBeLessThanOrEqual(255);
        }
      }),
      { seed: 4_102 },
    );
  });
});

describe('readRequestId', () => {
  const options = { names: ['Service-Request-Id', 'Idempotency-Key'], query: true, maxLength: 255 };

  it('answers absent when no header or parameter is there', () => {
    expect(readRequestId({ headers: {}, url: '/x?a=1' }, options)).toEqual({ kind: 'absent' });
  });

  it('reads the query parameter case-insensitively', () => {
    expect(readRequestId({ headers: {}, url: '/x?service-request-id=abc' }, options)).toEqual({
      kind: 'found',
      id: 'abc',
      source: 'Service-Request-Id',
    });
  });

  it('ignores the query when query is false', () => {
    expect(
      readRequestId(
        { headers: {}, url: '/x?Service-Request-Id=abc' },
        { ...options, query: false },
      ),
    ).toEqual({ kind: 'absent' });
  });

  it('accepts the same id in header and query', () => {
    const result = readRequestId(
      { headers: { 'service-request-id': 'abc' }, url: '/x?Service-Request-Id=abc' },
      options,
    );
    expect(result).toMatchObject({ kind: 'found', id: 'abc' });
  });

  it('reports two different ids as ambiguous', () => {
    const result = readRequestId(
      { headers: { 'service-request-id': 'abc', 'idempotency-key': 'def' } },
      options,
    );
    expect(result).toEqual({ kind: 'ambiguous', source: 'Idempotency-Key' });
  });
});

describeEachExpress('validating the id', (express) => {
  it.each([
    ['an empty id', ''],
    ['an id with a space', 'a b'],
    ['an id with a comma', 'a,b'],
    ['an id with markup', '<script>alert(1)</script>'],
    ['an id of 256 characters', 'x'.repeat(256)],
    ['an id with __proto__ and a NUL-like escape', '__proto__%00'],
  ])('answers 400 naming the header for %s', async (_title, value) => {
    const app = await startApp(express);
    const res = await request(app.url).post('/v1/things').set('Service-Request-Id', value);
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Service-Request-Id' });
    expect(res.body.error.innererror).toEqual({ code: 'SERVICE_REQUEST_ID_INVALID' });
    expect(res.text).not.toContain('<script>');
    expect(app.runs.things).toBeUndefined();
  });

  it('accepts an id of 255 characters', async () => {
    const app = await startApp(express);
    const res = await request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', 'y'.repeat(255));
    expect(res.status).toBe(201);
  });

  it('accepts __proto__ as an ordinary id', async () => {
    const app = await startApp(express);
    await request(app.url).post('/v1/things').set('Service-Request-Id', '__proto__');
    const res = await request(app.url).post('/v1/things').set('Service-Request-Id', '__proto__');
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(app.runs.things).toBe(1);
  });

  it('answers 400 for a repeated header', async () => {
    const app = await startApp(express);
    // Two header lines; Node joins them with ", ", which no valid id contains.
    const twoLines: unknown = ['one', 'two'];
    const res = await request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', twoLines as string);
    expectErrorEnvelope(res, 400, { target: 'Service-Request-Id' });
    expect(app.runs.things).toBeUndefined();
  });

  it('answers 400 SERVICE_REQUEST_ID_AMBIGUOUS when header and query differ', async () => {
    const app = await startApp(express);
    const res = await request(app.url)
      .post('/v1/things?Service-Request-Id=one')
      .set('Service-Request-Id', 'two');
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Service-Request-Id' });
    expect(res.body.error.innererror).toEqual({ code: 'SERVICE_REQUEST_ID_AMBIGUOUS' });
  });

  it('answers 400 for a repeated query parameter with different values', async () => {
    const app = await startApp(express);
    const res = await request(app.url).post(
      '/v1/things?Service-Request-Id=one&Service-Request-Id=two',
    );
    expectErrorEnvelope(res, 400, { target: 'Service-Request-Id' });
  });

  it('answers 400 naming Idempotency-Key when that header is the bad one', async () => {
    const app = await startApp(express);
    const res = await request(app.url).post('/v1/things').set('Idempotency-Key', 'a b');
    expectErrorEnvelope(res, 400, { target: 'Idempotency-Key' });
  });

  it('does not read Idempotency-Key when aliases is empty', async () => {
    const app = await startApp(express, { aliases: [] });
    await request(app.url).post('/v1/things').set('Idempotency-Key', 'k');
    await request(app.url).post('/v1/things').set('Idempotency-Key', 'k');
    expect(app.runs.things).toBe(2);
  });

  it('reads a custom header name', async () => {
    const app = await startApp(express, { header: 'PayPal-Request-Id', aliases: [] });
    await request(app.url).post('/v1/things').set('PayPal-Request-Id', 'pp');
    const res = await request(app.url).post('/v1/things').set('PayPal-Request-Id', 'pp');
    expect(res.headers['idempotent-replayed']).toBe('true');
  });

  describe('when required is set', () => {
    it('answers 400 SERVICE_REQUEST_ID_REQUIRED for a POST without an id', async () => {
      const app = await startApp(express, { required: true });
      const res = await request(app.url).post('/v1/things').send({ a: 1 });
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Service-Request-Id' });
      expect(res.body.error.innererror).toEqual({ code: 'SERVICE_REQUEST_ID_REQUIRED' });
      expect(app.runs.things).toBeUndefined();
    });

    it('still lets GET through without an id', async () => {
      const app = await startApp(express, { required: true });
      const res = await request(app.url).get('/v1/things');
      expect(res.status).toBe(200);
    });
  });
});
