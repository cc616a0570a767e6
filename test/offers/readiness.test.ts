/**
 * A starting node reports itself warming on /readyz until its read model has read the catalogue, so a
 * proxy routing by readiness sends requests to nodes that answer them from memory; once warm it stays
 * ready, also while a later bulk change has it read the catalogue again.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { healthRoutes } from '../../src/observability/health.routes.js';
import { Metrics } from '../../src/observability/metrics.js';
import type { OfferReadModel } from '../../src/offers/read-model.js';
import type { PublicOfferRow } from '../../src/offers/schemas.js';
import { OfferStore } from '../../src/offers/store.js';
import { WARM_UP_MAX_MS, WholeCatalogue } from '../../src/offers/whole-catalogue.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { until } from '../support/until.js';
import { publishedOfferRow, readModelOver } from './support.js';

/** The offers store whose reading of the catalogue waits until the test lets it go on. */
class GatedStore extends OfferStore {
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  chunksAsked = 0;
  override async publishedAfter(after: string, rows: number): Promise<PublicOfferRow[]> {
    this.chunksAsked++;
    await this.gate;
    return super.publishedAfter(after, rows);
  }
  release(): void {
    this.open();
  }
}

describeEachEngine('readiness waits for the offers in memory', (engine) => {
  let database: TestDatabase;
  let store: GatedStore;
  let model: OfferReadModel;
  let app: FastifyInstance;
  beforeEach(async () => {
    database = await freshDatabase(engine);
    await database.db.kysely
      .insertInto('offers')
      .values([publishedOfferRow(eanOf(710_001), 'a'.repeat(32), 900)])
      .execute();
    store = new GatedStore(database.db.kysely);
    model = readModelOver(database.db, 1000, store);
    app = Fastify();
    await app.register(healthRoutes, { metrics: new Metrics(), db: database.db, offers: model });
    await app.ready();
  });
  afterEach(async () => {
    store.release();
    await model.stop();
    await app.close();
    await database.drop();
  });

  it('answers 503 warming while the first reading runs, then 200 ready', async () => {
    expect(model.warm).toBe(false);
    await model.start();
    await until(() => store.chunksAsked > 0, 'the reading to begin');
    const warming = await app.inject({ method: 'GET', url: '/readyz' });
    expect(warming.statusCode).toBe(503);
    expect(warming.json()).toEqual({ status: 'warming', database: 'up', offers: 'warming' });

    store.release();
    await until(() => model.warm, 'the first reading to end');
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', database: 'up', offers: 'warm' });
    expect(model.stats().eans).toBe(1);
  });

  it('stays ready when a change to every offer has it read the catalogue again', async () => {
    store.release();
    await model.start();
    await until(() => model.warm, 'the first reading to end');
    const chunks = store.chunksAsked;
    await database.db.kysely.insertInto('offer_changes').values({ ean: '*', changed_at: Date.now() }).execute();
    await model.sync();
    await until(() => store.chunksAsked > chunks, 'the catalogue to be read again', 5000);
    expect(model.warm).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('is ready without reading when the catalogue is larger than its bound, and fills on demand', async () => {
    await database.db.kysely
      .insertInto('offers')
      .values([publishedOfferRow(eanOf(710_002), 'b'.repeat(32), 800)])
      .execute();
    const bounded = readModelOver(database.db, 1, store);
    await bounded.start();
    await until(() => bounded.warm, 'the first reading to end');
    expect(store.chunksAsked).toBe(0);
    expect((await bounded.published([eanOf(710_001)])).json).toContain('a'.repeat(32));
    await bounded.stop();
  });
});

describe('a first reading that does not end', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reports warming for WARM_UP_MAX_MS at most', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // A database that never answers: the count that begins the reading stays pending.
    const hanging = { countPublishedEans: () => new Promise<number>(() => undefined) } as unknown as OfferStore;
    const catalogue = new WholeCatalogue(hanging, 0, 1000, () => undefined);
    catalogue.warmUp();
    vi.advanceTimersByTime(WARM_UP_MAX_MS - 1);
    expect(catalogue.warm).toBe(false);
    vi.advanceTimersByTime(1);
    expect(catalogue.warm).toBe(true);
  });
});
