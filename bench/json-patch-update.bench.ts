/**
 * PATCH through the jsonPatchUpdate middleware (body reading, lock, preconditions, read-only
 * checks, schema, Prefer) against a hand-written route that calls the same pure applyJsonPatch
 * behind express.json(); and GET with
 * conditionalRequests' strong SHA-256 ETag against Express's default weak ETag.
 */
import { conditionalRequests, etagFor } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import { applyJsonPatch, jsonPatchUpdate } from '@resourceful/json-patch-update';
import express from 'express';
import { z } from 'zod';
import { type Comparison, compare, load } from './harness.js';

const Webhook = z.object({
  id: z.string(),
  url: z.url(),
  event_types: z.array(z.object({ name: z.string() })),
  create_time: z.string(),
  update_time: z.string(),
});
type Webhook = z.infer<typeof Webhook>;

function seed(): Map<string, Webhook> {
  const now = new Date().toISOString();
  return new Map([
    [
      'WH-1',
      {
        id: 'WH-1',
        url: 'https://a.example/hook',
        event_types: Array.from({ length: 10 }, (_, i) => ({ name: `EVENT.${i}` })),
        create_time: now,
        update_time: now,
      },
    ],
  ]);
}

function handWritten() {
  const store = seed();
  const app = express();
  app.patch('/hooks/:id', express.json({ type: 'application/json-patch+json' }), (req, res) => {
    const current = store.get(req.params.id);
    if (!current) {
      res.status(404).end();
      return;
    }
    const next = applyJsonPatch(current, req.body) as Webhook;
    const parsed = Webhook.safeParse({ ...next, update_time: new Date().toISOString() });
    if (!parsed.success) {
      res.status(400).json({ error: { code: 'VALIDATION_ERROR', message: 'invalid' } });
      return;
    }
    store.set(parsed.data.id, parsed.data);
    res.setHeader('ETag', etagFor(parsed.data));
    res.status(204).end();
  });
  return app;
}

function withPackage() {
  const store = seed();
  const app = express();
  app.patch(
    '/hooks/:id',
    jsonPatchUpdate({
      load: (id) => store.get(id),
      save: (hook) => void store.set(hook.id, hook),
      schema: Webhook,
    }),
  );
  app.use(errorHandler());
  return app;
}

function getApp(strong: boolean) {
  const store = seed();
  const app = express();
  if (strong) app.use(conditionalRequests());
  app.get('/hooks/:id', (req, res) => {
    res.json(store.get(req.params.id));
  });
  return app;
}

export async function run(): Promise<Comparison[]> {
  const patch = {
    method: 'PATCH',
    path: '/hooks/WH-1',
    headers: { 'content-type': 'application/json-patch+json' },
    body: JSON.stringify([
      { op: 'test', path: '/id', value: 'WH-1' },
      { op: 'replace', path: '/url', value: 'https://b.example/hook' },
    ]),
  };
  return [
    await compare(
      'json-patch-update: PATCH via jsonPatchUpdate vs hand-written route calling applyJsonPatch',
      () => load(handWritten(), patch),
      () => load(withPackage(), patch),
    ),
    await compare(
      'conditional-requests: GET with strong SHA-256 ETag vs Express default weak ETag',
      () => load(getApp(false), { path: '/hooks/WH-1' }),
      () => load(getApp(true), { path: '/hooks/WH-1' }),
      { goal: { atLeast: 0.97, source: '#19: strong ETags cost ≤ 3 %' } },
    ),
  ];
}
