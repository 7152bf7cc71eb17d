import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { expect, it } from 'vitest';
import { mountOperations, type SubResourceActions, subResourceActions } from '../src/index.js';

interface Card {
  id: string;
  customer_id: string;
  locked: boolean;
}

describeEachExpress('actions of a nested resource', (express) => {
  function build() {
    const cards = new Map<string, Card>([
      ['C-1', { id: 'C-1', customer_id: 'U-1', locked: false }],
    ]);
    const actions: SubResourceActions<Card> = subResourceActions({
      publicBaseUrl: 'http://api.test',
      resource: '/customers/:customer_id/cards/:card_id',
      load: (id, req) => {
        const card = cards.get(id);
        return card?.customer_id === req.params?.customer_id ? card : undefined;
      },
      represent: (card, req) => ({ ...card, links: actions.links(req, card) }),
      state: (card) => (card.locked ? 'LOCKED' : 'OPEN'),
      actions: {
        lock: {
          available: (card) => !card.locked,
          perform: ({ resource }) => {
            if (resource.locked) return false;
            resource.locked = true;
            return true;
          },
        },
      },
    });
    const app = express();
    app.use(express.json());
    const v1 = express.Router();
    mountOperations(v1, [actions]);
    app.use('/v1', v1);
    app.use(errorHandler());
    return app;
  }

  it('fills the parent id of links from the request', async () => {
    const res = await request(build()).post('/v1/customers/U-1/cards/C-1/lock');
    expect(res.status).toBe(200);
    expect(res.body.links).toEqual([
      { href: 'http://api.test/v1/customers/U-1/cards/C-1/history', rel: 'history', method: 'GET' },
    ]);
  });

  it('answers 404 when the card belongs to another customer', async () => {
    const res = await request(build()).post('/v1/customers/U-2/cards/C-1/lock');
    expect(res.status).toBe(404);
    expect(res.body.error.target).toBe('card_id');
  });
});
