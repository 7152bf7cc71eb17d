/**
 * @module The records the example starts with, so every list has something to show and the
 * billing agreements have enough to page through.
 */
import { newAgreement } from './resources/billing-agreements.js';
import { type CreditCardInput, newCard } from './resources/credit-cards.js';
import { newCustomer } from './resources/customers.js';
import { newCapture } from './resources/refunds.js';
import { newWebhook } from './resources/webhooks.js';
import type { Stores } from './stores.js';

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

const HOUR = 3_600_000;

/** Seed times lie in the past, one hour apart, oldest first. */
function seedTime(start: Date, index: number, count: number): string {
  return new Date(start.getTime() - (count - index) * HOUR).toISOString();
}

/**
 * Stores the seed records. The app runs it through `Stores.seedOnce`: in a shared database only
 * the first instance seeds, so a seed record a client changed or deleted stays so. Records
 * already there are kept all the same.
 */
export async function seed(stores: Stores, start: Date): Promise<void> {
  for (const [index, input] of SEED_CARDS.entries()) {
    await stores.cards.insertIfAbsent(
      newCard(`CARD-SEED${index + 1}`, input, seedTime(start, index, 3)),
    );
  }

  const customers = [
    ['merchant-cust-1', 'Betsy', 'Buyer'],
    ['merchant-cust-2', 'Joe', 'Shopper'],
    ['merchant-cust-3', 'Ada', 'Lovelace'],
  ] as const;
  for (const [index, [merchantCustomerId, firstName, lastName]] of customers.entries()) {
    const input = {
      merchant_customer_id: merchantCustomerId,
      merchant_id: 'MERCHANT-1',
      first_name: firstName,
      last_name: lastName,
    };
    await stores.customers.insertIfAbsent(
      newCustomer(`CUST-SEED${index + 1}`, input, seedTime(start, index, 3)),
    );
  }

  const agreementCount = 25;
  for (let index = 0; index < agreementCount; index++) {
    const agreement = newAgreement(
      `AGREEMENT-SEED${String(index + 1).padStart(2, '0')}`,
      { description: `Monthly plan ${index + 1}` },
      seedTime(start, index, agreementCount),
    );
    if (index % 5 === 4) agreement.state = 'SUSPENDED';
    await stores.agreements.insertIfAbsent(agreement);
  }

  await stores.webhooks.insertIfAbsent(
    newWebhook(
      'WH-SEED1',
      {
        url: 'https://hooks.example.com/payments',
        event_types: [
          { name: 'PAYMENT.SALE.COMPLETED', description: 'A sale completed.' },
          { name: 'PAYMENT.SALE.REFUNDED', description: 'A sale was refunded.' },
          { name: 'BILLING.SUBSCRIPTION.SUSPENDED', description: 'An agreement was suspended.' },
        ],
      },
      seedTime(start, 0, 1),
    ),
  );

  // One payment and its capture each. The last three show the currencies' minor units: cents
  // that binary floating point cannot add (0.10 + 0.20), no decimals (JPY), three (KWD).
  const captures = [
    ['10.00', 'USD'],
    ['25.50', 'USD'],
    ['99.99', 'USD'],
    ['0.30', 'USD'],
    ['1500', 'JPY'],
    ['1.250', 'KWD'],
  ] as const;
  for (const [index, [total, currency]] of captures.entries()) {
    const time = seedTime(start, index, captures.length);
    const paymentId = `PAY-SEED${index + 1}`;
    const amount = { total, currency };
    await stores.payments.insertIfAbsent({
      id: paymentId,
      intent: 'sale',
      state: 'approved',
      amount,
      create_time: time,
      update_time: time,
    });
    await stores.captures.insertIfAbsent(
      newCapture(`CAPTURE-SEED${index + 1}`, paymentId, amount, time),
    );
  }
}
