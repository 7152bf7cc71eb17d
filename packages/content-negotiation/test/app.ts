import { conditionalRequests } from '@resourceful/conditional-requests';
import { ApiError, errorHandler } from '@resourceful/error-envelope';
import type { ExpressModule } from '@resourceful/test-support';
import type { Express } from 'express';
import type request from 'supertest';
import { type ContentNegotiationOptions, contentNegotiation, getLanguage } from '../src/index.js';

export const CARD = {
  id: 'CARD-1',
  name: 'Zoë Ødegård',
  note: 'price ≤ 10 € 😀',
  amount: 10.5,
  active: true,
  expires: null,
  tags: ['a', 'b'],
  links: [{ href: '/cards/CARD-1', rel: 'self', method: 'GET' }],
};

export const GREETING: Record<string, string> = { en: 'Hello', fr: 'Bonjour', 'fr-CA': 'Allô' };

/** A small app: the middleware, conditional-requests after it, a JSON parser, and routes. */
export function buildApp(
  express: ExpressModule,
  options: ContentNegotiationOptions = {},
  setup: (app: Express) => void = () => {},
): Express {
  const app = express();
  setup(app);
  app.use(contentNegotiation(options));
  app.use(conditionalRequests());
  app.use(express.json({ type: ['application/json', 'application/*+json'] }));
  app.get('/card', (_req, res) => {
    res.json(CARD);
  });
  app.get('/items', (req, res) => {
    const count = Number(req.query.count ?? 100);
    res.json({ items: Array.from({ length: count }, (_, i) => ({ ...CARD, id: `CARD-${i}` })) });
  });
  app.get('/greeting', (req, res) => {
    const language = getLanguage(req) ?? 'en';
    res.json({ text: GREETING[language] });
  });
  app.get('/plain', (req, res) => {
    res.json({ language: req.language === undefined ? 'none' : 'read' });
  });
  app.get('/no-transform', (_req, res) => {
    res.set('Cache-Control', 'no-transform').json(CARD);
  });
  app.get('/empty', (_req, res) => {
    res.status(204).end();
  });
  // JSON serialised by the route (a cached answer): res.send, which hands HEAD's body to no one.
  app.get('/sent', (req, res) => {
    const json = JSON.stringify(CARD);
    res.type('json').send(req.query.as === 'buffer' ? Buffer.from(json) : json);
  });
  app.get('/text', (_req, res) => {
    res.type('text/plain').send('just text');
  });
  app.get('/missing', () => {
    throw ApiError.notFound('No card <here> & "there".');
  });
  app.post('/echo', (req, res) => {
    res.status(201).json({ received: req.body as unknown });
  });
  app.use(errorHandler());
  return app;
}

/** A supertest parser keeping the (decompressed) body as bytes: `.buffer(true).parse(bytes)`. */
export function bytes(
  res: request.Response,
  callback: (error: Error | null, body: Buffer) => void,
): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
  stream.on('error', (error: Error) => callback(error, Buffer.alloc(0)));
}

/** A supertest serializer sending a Buffer as it is, whatever the Content-Type. */
export const asIs = (body: unknown): string => body as string;
