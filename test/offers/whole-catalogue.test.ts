/**
 * A read model that holds the whole catalogue answers EANs without offers from memory, and still
 * asks the database for every EAN that changed since it read the catalogue.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PublicOfferRow } from '../../src/offers/schemas.js';
import { OfferStore } from '../../src/offers/store.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { until } from '../support/until.js';
import { publishedOfferRow, readModelOver } from './support.js';

/** The offers store, counting the queries of EANs asked for (the whole catalogue's reads are not counted). */
class CountingStore extends OfferStore {
  asked: string[][] = [];
  /** The reading of the whole catalogue came to its end (a chunk found nothing more). */
  readToTheEnd = false;
  override findPublishedByEans(eans: readonly string[]): Promise<PublicOfferRow[]> {
    this.asked.push([...eans]);
    return super.findPublishedByEans(eans);
  }
  override async publishedAfter(after: string, rows: number): Promise<PublicOfferRow[]> {
    const found = await super.publishedAfter(after, rows);
    if (found.length === 0) this.readToTheEnd = true;
    return found;
  }
}

describeEachEngine('the read model holding the whole catalogue', (engine) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await freshDatabase(engine);
  });
  afterEach(async () => {
    await database.drop();
  });

  it('answers unknown EANs without a query, and asks again for an EAN that changed since', async () => {
    const [known, later, unknown] = [eanOf(700_001), eanOf(700_002), eanOf(700_003)];
    const db = database.db.kysely;
    await db
      .insertInto('offers')
      .values([publishedOfferRow(known, 'a'.repeat(32), 900), publishedOfferRow(known, 'b'.repeat(32), 700)])
      .execute();
    const store = new CountingStore(db);
    const model = readModelOver(database.db, 1000, store);
    await model.start();
    await until(() => store.readToTheEnd, 'the whole catalogue read');
    expect(model.stats().eans).toBe(1);
    const prices = async (eans: string[]) =>
      (JSON.parse((await model.published(eans)).json) as { price: number }[]).map((found) => found.price);
    expect(await prices([known, unknown, later])).toEqual([7, 9]);
    expect(store.asked).toEqual([]);

    await db
      .insertInto('offers')
      .values(publishedOfferRow(later, 'c'.repeat(32), 500))
      .execute();
    await model.sync();
    expect(await prices([later, unknown])).toEqual([5]);
    expect(store.asked).toEqual([[later]]);
    expect(await prices([later])).toEqual([5]);
    expect(store.asked).toHaveLength(1);
    await model.stop();
  });

  it('holds nothing ahead when the catalogue is larger than its bound', async () => {
    const db = database.db.kysely;
    await db
      .insertInto('offers')
      .values([
        publishedOfferRow(eanOf(700_011), 'd'.repeat(32), 100),
        publishedOfferRow(eanOf(700_012), 'e'.repeat(32), 200),
      ])
      .execute();
    const store = new CountingStore(db);
    const model = readModelOver(database.db, 1, store);
    await model.start();
    expect((await model.published([eanOf(700_013)])).json).toBe('[]');
    expect(store.asked).toEqual([[eanOf(700_013)]]);
    await model.stop();
  });
});
