/**
 * @module A webhook-like resource with an asynchronous in-memory store, shared by the HTTP tests.
 */
import { conditionalRequests } from '@resourceful/conditional-requests';
import { errorHandler } from '@resourceful/error-envelope';
import type { ExpressModule } from '@resourceful/test-support';
import { z } from 'zod';
import {
  type JsonPatchUpdateOptions,
  jsonPatchUpdate,
  type PutReplaceOptions,
  putReplace,
} from '../src/index.js';

export const Webhook = z.object({
  id: z.string(),
  url: z.url(),
  event_types: z.array(z.object({ name: z.string(), description: z.string().optional() })),
  secret: z.string().optional(),
  description: z.string().optional(),
  create_time: z.string(),
  update_time: z.string(),
});
export type Webhook = z.infer<typeof Webhook>;

export const CREATED = '2024-01-01T00:00:00.000Z';
export const NOW = new Date('2025-06-01T12:00:00.000Z');

export function seed(): Map<string, Webhook> {
  return new Map([
    [
      'WH-1',
      {
        id: 'WH-1',
        url: 'https://a.example/hook',
        event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }],
        secret: 's3cret',
        description: 'orders',
        create_time: CREATED,
        update_time: CREATED,
      },
    ],
  ]);
}

export interface Fixture {
  store: Map<string, Webhook>;
  saves: number;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

type Extra = Partial<JsonPatchUpdateOptions<Webhook>> &
  Pick<PutReplaceOptions<Webhook>, 'allowCreate'>;

/** An app with PATCH and PUT on /hooks/:id over an asynchronous store. */
export function buildApp(
  express: ExpressModule,
  fixture: Fixture,
  extra: Extra = {},
): ReturnType<ExpressModule> {
  const { allowCreate, upsert, mergePatch, initial, maxOperations, ...shared } = extra;
  const base = {
    load: async (id: string) => {
      await tick();
      return fixture.store.get(id);
    },
    save: async (hook: Webhook) => {
      await tick();
      fixture.store.set(hook.id, hook);
      fixture.saves++;
    },
    schema: Webhook,
    readOnly: ['secret'],
    now: () => NOW,
    ...shared,
  };
  const app = express();
  app.use(conditionalRequests());
  app.patch('/hooks/:id', jsonPatchUpdate({ ...base, upsert, mergePatch, initial, maxOperations }));
  app.put('/hooks/:id', express.json(), putReplace({ ...base, allowCreate }));
  app.get('/hooks/:id', (req, res) => {
    const hook = fixture.store.get(String(req.params.id));
    if (hook) res.json(hook);
    else res.status(404).end();
  });
  app.use(errorHandler());
  return app;
}
