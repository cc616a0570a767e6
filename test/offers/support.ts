/**
 * Shared pieces of the offers tests: the textbooks they sell, by subject (EAN-13s with valid check
 * digits); a published offer row as stored; a read model over a bare database.
 */

import { ChangeLogStore } from '../../src/db/change-log.js';
import type { Db } from '../../src/db/database.js';
import { OfferReadModel } from '../../src/offers/read-model.js';
import { OfferStore } from '../../src/offers/store.js';

export const MATH = '9789001891442';
export const ENGLISH = '9780194837125';
export const PHYSICS = '9789034523716';
export const HISTORY = '9789001774363';

/** A published offer as its row is stored, for writing straight into the table past the service. */
export const publishedOfferRow = (ean: string, identifier: string, priceCents: number) => ({
  identifier,
  ean,
  price_cents: priceCents,
  condition: 'good',
  remarks: null,
  status: 'published',
  published_at: 1,
  created_at: 1,
  updated_at: 1,
});

/**
 * A read model of the offers in `db`, holding at most `offersCacheEans` EANs, without a service fee.
 * Its timer waits a minute: within a test it reads the change log when the test calls sync() (and, on
 * PostgreSQL, when a notification wakes it).
 */
export function readModelOver(db: Db, offersCacheEans: number, store = new OfferStore(db.kysely)): OfferReadModel {
  return new OfferReadModel(
    store,
    new ChangeLogStore(db.kysely, 'offer_changes'),
    { serviceFeeCents: 0, offersCacheEans, offersSyncIntervalMs: 60_000 },
    db.dialect,
  );
}
