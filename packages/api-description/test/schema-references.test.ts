/**
 * A schema library names a subschema it reuses (zod's `.meta({ id })`) or that recurses
 * (`z.lazy`) in `$defs`, referred to as `#/$defs/…` (or the whole schema, `#`). Placed in an
 * OpenAPI document under `components/schemas`, those references resolve against the document's
 * root, where nothing of the kind is: the document must not carry them.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeApi, openApiDocument } from '../src/index.js';
import { Card } from './fixtures.js';

const Address = z.object({ city: z.string() }).meta({ id: 'Address', description: 'An address.' });
const Located = Card.extend({ home: Address, work: Address.optional() });

function describeCard(representation: unknown, create?: unknown) {
  return describeApi({
    title: 'T',
    version: '1',
    pathVersion: 'v1',
    resources: [
      {
        name: 'CreditCard',
        path: '/vault/credit-cards',
        summary: 'Cards.',
        representation: representation as typeof Card,
        operations: create === undefined ? { read: true } : { read: true, create: create as never },
      },
    ],
  });
}

describe('schemas with references', () => {
  it('inlines the subschemas a schema names in $defs, so the document refers to none', () => {
    const api = describeCard(Located);
    const properties = api.resources[0]!.representation.properties as Record<string, unknown>;
    const address = {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
      description: 'An address.',
    };
    expect(properties.home).toEqual(address);
    expect(properties.work).toEqual(address);
    expect(api.resources[0]!.representation).not.toHaveProperty('$defs');
    const text = JSON.stringify(openApiDocument(api));
    expect(text).not.toContain('"#/$defs/');
    expect(text).not.toContain('"$ref":"#"');
  });

  it('keeps a hand-written reference to a component of the document as it is', () => {
    const representation = z.toJSONSchema(Card) as Record<string, unknown>;
    const properties = {
      ...(representation.properties as Record<string, unknown>),
      links: { type: 'array', items: { $ref: '#/components/schemas/Link' } },
    };
    const api = describeCard({ ...representation, properties });
    expect((api.resources[0]!.representation.properties as Record<string, unknown>).links).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Link' },
    });
  });

  it('refuses a recursive schema when the service starts, naming it', () => {
    const Node: z.ZodType<unknown> = z.lazy(() =>
      z.object({ name: z.string(), children: z.array(Node) }),
    );
    expect(() => describeCard(Card.extend({ tree: Node }))).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        option: 'resources[0].representation',
        message: expect.stringMatching(/recursive/),
      }),
    );
    const selfReferring = { type: 'object', properties: { parent: { $ref: '#' } } };
    expect(() => describeCard(Card, selfReferring)).toThrow(
      expect.objectContaining({ option: 'resources[0].operations.create' }),
    );
  });

  it('refuses a reference to a $defs entry the schema does not have', () => {
    const dangling: Record<string, unknown> = { ...z.toJSONSchema(Card), $defs: {} };
    (dangling.properties as Record<string, unknown>).home = { $ref: '#/$defs/Missing' };
    expect(() => describeCard(dangling)).toThrow(/"#\/\$defs\/Missing"/);
  });
});

describe('component names', () => {
  const representation = Card;
  const resource = (name: string, path: string, operations: Record<string, unknown>) => ({
    name,
    path,
    summary: `${name}s.`,
    representation,
    operations,
  });
  const describeTwo = (first: unknown, second: unknown) =>
    describeApi({
      title: 'T',
      version: '1',
      pathVersion: 'v1',
      resources: [first, second] as never,
    });

  it('refuses a resource named as a schema the document derives from another one', () => {
    for (const [name, operations] of [
      ['CardCollection', { list: {} }],
      ['CardCreate', { create: representation }],
      ['CardMergePatch', { patch: true }],
    ] as const) {
      expect(() =>
        describeTwo(
          resource('Card', '/cards', { read: true, ...operations }),
          resource(name, '/others', { read: true }),
        ),
      ).toThrow(
        expect.objectContaining({
          code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
          message: expect.stringContaining(`"${name}"`),
        }),
      );
    }
  });

  it('refuses a resource named as one of the document’s own schemas', () => {
    for (const name of ['Link', 'ErrorEnvelope', 'ErrorDetail', 'JsonPatch']) {
      expect(() =>
        describeTwo(resource('Card', '/cards', { read: true }), resource(name, '/others', {})),
      ).toThrow(expect.objectContaining({ code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS' }));
    }
  });

  it('refuses a sub-collection of a resource whose list answers a summary: two collections, one name', () => {
    const summary = Card.omit({ number: true });
    expect(() =>
      describeTwo(resource('Refund', '/refunds', { read: true, list: { summary } }), {
        ...resource('Capture', '/captures', { read: true }),
        subCollections: [{ name: 'refunds', summary: 'Refunds.', items: 'Refund' }],
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
        message: expect.stringContaining('"RefundCollection"'),
      }),
    );
  });
});
