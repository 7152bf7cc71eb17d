/**
 * Three measurements for @resourceful/content-negotiation, each against a baseline in the same
 * run:
 * 1. A JSON list GET (a 100-item page) through the middleware vs the same app without it.
 * 2. The XML answer of that page vs its JSON answer, both through the middleware.
 * 3. Its gzip answer vs its identity answer, both through the middleware.
 */
import { contentNegotiation } from '@resourceful/content-negotiation';
import express, { type Request, type Response } from 'express';
import { type Comparison, compare, load } from './harness.js';

export const page = {
  items: Array.from({ length: 100 }, (_, index) => ({
    id: `CARD-${index}`,
    payer_id: `P-${index % 7}`,
    type: 'visa',
    number: 'xxxxxxxxxxxx1111',
    expire_month: '11',
    expire_year: '2031',
    first_name: 'Zoë',
    state: 'ok',
    create_time: new Date(Date.UTC(2024, 0, 1, 0, 0, index)).toISOString(),
    links: [
      {
        href: `https://api.example.com/v1/vault/credit-cards/CARD-${index}`,
        rel: 'self',
        method: 'GET',
      },
    ],
  })),
  total_items: 1000,
  links: [
    { href: 'https://api.example.com/v1/vault/credit-cards?page=2', rel: 'next', method: 'GET' },
  ],
};

function app(negotiated: boolean) {
  const server = express();
  if (negotiated) server.use(contentNegotiation());
  server.get('/v1/vault/credit-cards', (_req: Request, res: Response) => {
    res.json(page);
  });
  return server;
}

const PATH = '/v1/vault/credit-cards';

export async function run(): Promise<Comparison[]> {
  const plain = app(false);
  const negotiated = app(true);
  const json = { path: PATH, headers: { accept: 'application/json' } };
  return [
    await compare(
      'content-negotiation: JSON list GET, with the middleware vs without',
      () => load(plain, json),
      () => load(negotiated, json),
      { goal: { atLeast: 0.95, source: '#12' } },
    ),
    await compare(
      'content-negotiation: 100-item page as XML vs as JSON',
      () => load(negotiated, json),
      () => load(negotiated, { path: PATH, headers: { accept: 'application/xml' } }),
    ),
    await compare(
      'content-negotiation: 100-item page gzip vs identity',
      () => load(negotiated, json),
      () =>
        load(negotiated, {
          path: PATH,
          headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
        }),
    ),
  ];
}
