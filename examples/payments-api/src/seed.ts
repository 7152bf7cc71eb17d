/**
 * @module The records the example starts with, so every list has something to show.
 */

import type { MemoryCollection } from './memory-collection.js';
import { type CreditCardInput, newCard, type StoredCard } from './resources/credit-cards.js';

const SEED_CARDS: readonly CreditCardInput[] = [
  {
    payer_id: 'user12345',
    type: 'visa',
    number: '4417119669820331',
    expire_month: '11',
    expire_year: '2030',
    first_name: 'Betsy',
    last_name: 'Buyer',
    billing_address: {
      line1: '111 First Street',
      city: 'Saratoga',
      country_code: 'US',
      state: 'CA',
      postal_code: '95070',
    },
  },
  {
    payer_id: 'user12345',
    type: 'mastercard',
    number: '5500005555555559',
    expire_month: '2',
    expire_year: '2029',
    first_name: 'Betsy',
    last_name: 'Buyer',
  },
  {
    payer_id: 'user67890',
    type: 'amex',
    number: '371449635398431',
    expire_month: '7',
    expire_year: '2031',
    first_name: 'Joe',
    last_name: 'Shopper',
  },
];

export function seedCards(cards: MemoryCollection<StoredCard>, start: Date): void {
  SEED_CARDS.forEach((input, index) => {
    const time = new Date(start.getTime() - (SEED_CARDS.length - index) * 3_600_000).toISOString();
    cards.set(newCard(`CARD-SEED${index + 1}`, input, time));
  });
}
