/**
 * The offers read model must answer exactly what the database query answers, on the node that wrote
 * at once, and on another node within the documented bound (OFFERS_SYNC_INTERVAL_MS, or at commit on
 * PostgreSQL through NOTIFY).
 */

import fc from 'fast-check';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { systemClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { connectDatabase, type Db } from '../../src/db/database.js';
import { type App, buildApp } from '../../src/main/app.js';
import { createServices, type Services } from '../../src/main/services.js';
import { ANSWER_MEMO_ENTRIES, ANSWER_MEMO_MAX_CHARS, AnswerMemo } from '../../src/offers/answer-memo.js';
import { OFFER_STATUSES } from '../../src/offers/model.js';
import { eanCheckDigit } from '../../src/vocabulary/ean.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { openTransaction } from '../support/open-transaction.js';
import { requester } from '../support/requests.js';
import { publishedOfferRow, readModelOver } from './support.js';

const EANS = ['9789001891442', '9780194837125', '9781108740623', '96385074'];
const ALL = EANS.join(',');

type Op =
  | { kind: 'create'; ean: number; price: number; status: (typeof OFFER_STATUSES)[number] }
  | { kind: 'update'; pick: number; price?: number; status?: (typeof OFFER_STATUSES)[number] }
  | { kind: 'delete'; pick: number }
  | { kind: 'read'; eans: number[] }
  | { kind: 'sql'; pick: number; status: (typeof OFFER_STATUSES)[number] };

const status = fc.constantFrom(...OFFER_STATUSES);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    ean: fc.nat(EANS.length - 1),
    price: fc.integer({ min: 1, max: 5000 }),
    status,
  }),
  fc.record({
    kind: fc.constant('update' as const),
    pick: fc.nat(),
    price: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined }),
    status: fc.option(status, { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('read' as const),
    eans: fc.uniqueArray(fc.nat(EANS.length - 1), { minLength: 1, maxLength: EANS.length }),
  }),
  fc.record({ kind: fc.constant('sql' as const), pick: fc.nat(), status }),
);

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

describeEachEngine('offers read model', (engine) => {
  let database: TestDatabase;
  let apps: App[] = [];
  let extraDbs: Db[] = [];

  /** A node: the app and its service graph. */
  const start = async (db: Db, syncMs = 1000): Promise<{ app: App; services: Services }> => {
    const deps = {
      config: testConfig({ adminToken: ADMIN_TOKEN, offersSyncIntervalMs: syncMs }),
      db,
      clock: systemClock,
    };
    const services = await createServices(deps);
    const app = await buildApp({ ...deps, services }, { logger: false });
    await app.ready();
    apps.push(app);
    return { app, services };
  };

  beforeEach(async () => {
    database = await freshDatabase(engine, { file: true });
  });
  afterEach(async () => {
    for (const app of apps) await app.close();
    for (const db of extraDbs) await db.close();
    apps = [];
    extraDbs = [];
    await database.drop();
  });

  it('answers exactly what the database query answers, after any sequence of writes (property)', async () => {
    const node = await start(database.db);
    const { offers } = node.services;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        await database.db.kysely.deleteFrom('offers').execute();
        await offers.readModel.sync();
        const ids: number[] = [];
        for (const step of ops) {
          const id = ids.length === 0 ? undefined : ids[('pick' in step ? step.pick : 0) % ids.length];
          if (step.kind === 'create') {
            ids.push(
              (
                await offers.create(
                  {
                    ean: EANS[step.ean] ?? '',
                    price: step.price / 100,
                    condition: 'good',
                    status: step.status,
                  },
                  SYSTEM,
                )
              ).id,
            );
          } else if (
            step.kind === 'update' &&
            id !== undefined &&
            (step.price !== undefined || step.status !== undefined)
          ) {
            await offers.update(
              String(id),
              {
                ...(step.price === undefined ? {} : { price: step.price / 100 }),
                ...(step.status === undefined ? {} : { status: step.status }),
              },
              SYSTEM,
            );
          } else if (step.kind === 'delete' && id !== undefined) {
            await offers.remove(String(id), SYSTEM);
            ids.splice(ids.indexOf(id), 1);
          } else if (step.kind === 'sql' && id !== undefined) {
            // A write that bypasses the service (an operator's SQL, another process): the change log catches it.
            await database.db.kysely.updateTable('offers').set({ status: step.status }).where('id', '=', id).execute();
            await offers.readModel.sync();
          } else if (step.kind === 'read') {
            const eans = step.eans.map((index) => EANS[index] ?? '').join(',');
            const expected = JSON.stringify(await offers.findPublished(eans));
            expect(await offers.findPublishedJson(eans)).toBe(expected);
            // The route's path, whose answers are remembered by query (answer-memo.ts): asked twice.
            expect((await offers.findPublishedWithTag(eans)).json).toBe(expected);
            expect((await offers.findPublishedWithTag(eans)).json).toBe(expected);
          }
          const expected = JSON.stringify(await offers.findPublished(ALL));
          expect(await offers.findPublishedJson(ALL)).toBe(expected);
          expect((await offers.findPublishedWithTag(ALL)).json).toBe(expected);
        }
      }),
      { numRuns: engine === 'sqlite' ? 60 : 25 },
    );
  });

  it('the node that withdrew an offer never serves it again, even to a read that started before', async () => {
    const node = await start(database.db);
    const { offers } = node.services;
    const offer = await offers.create({ ean: EANS[0] ?? '', price: 10, condition: 'good' }, SYSTEM);
    expect(JSON.parse(await offers.findPublishedJson(EANS[0]))).toHaveLength(1);
    // A read racing the write: begun before the withdrawal commits, finished after.
    const racing = offers.findPublishedJson(`${EANS[0]},${EANS[1]}`);
    await offers.update(String(offer.id), { status: 'withdrawn' }, SYSTEM);
    await racing;
    expect(await offers.findPublishedJson(EANS[0])).toBe('[]');
    const response = await requester(node.app, { authorization: `Bearer ${ADMIN_TOKEN}` }).get(
      `/api/admin/v1/offers/${offer.id}`,
    );
    expect(response.json<{ status: string }>().status).toBe('withdrawn');
  });

  it('a write on node A is served by node B within the bound (PostgreSQL: at commit; SQLite: the sync interval)', async () => {
    const second = await connectDatabase(database.url);
    extraDbs.push(second);
    const syncMs = 300;
    const a = await start(database.db, syncMs);
    const b = await start(second, syncMs);
    const ean = EANS[1] ?? '';
    expect(await b.services.offers.findPublishedJson(ean)).toBe('[]');
    // B's route path remembers its answer to this query; A's writes must reach it all the same.
    const answered = async (): Promise<string> => (await b.services.offers.findPublishedWithTag(ean)).json;
    expect(await answered()).toBe('[]');

    const created = await a.services.offers.create({ ean, price: 12.5, condition: 'excellent' }, SYSTEM);
    const seenAfter = await until(
      async () => (await b.services.offers.findPublishedJson(ean)).includes(`"id":${created.id}`),
      syncMs * 3 + 500,
    );
    expect(await answered()).toContain(`"id":${created.id}`);
    await a.services.offers.update(String(created.id), { status: 'sold' }, SYSTEM);
    const goneAfter = await until(
      async () => (await b.services.offers.findPublishedJson(ean)) === '[]',
      syncMs * 3 + 500,
    );
    // The remembered answer went with the fragment it was made of.
    expect(await answered()).toBe('[]');
    // The documented bound: one sync interval (plus scheduling slack on a busy host).
    expect(seenAfter).toBeLessThanOrEqual(syncMs * 3 + 500);
    expect(goneAfter).toBeLessThanOrEqual(syncMs * 3 + 500);
    expect(await b.services.offers.findPublishedJson(ean)).toBe(
      JSON.stringify(await b.services.offers.findPublished(ean)),
    );
  });

  it('a repeated query is answered from memory until a fragment is forgotten; unusual spellings and large answers are not kept', async () => {
    const node = await start(database.db);
    const { offers } = node.services;
    const offer = await offers.create({ ean: EANS[0] ?? '', price: 10, condition: 'good' }, SYSTEM);
    // The create's own change-log entry read now (on PostgreSQL its NOTIFY would otherwise arrive
    // after the first ask below and forget what that ask filled).
    await offers.readModel.sync();
    const query = `${EANS[0]},${EANS[1]}`;
    // The first ask fills the EANs' fragments from the database; an answer made from memory is kept.
    await offers.findPublishedWithTag(query);
    const first = offers.findPublishedWithTag(query);
    expect(first).not.toBeInstanceOf(Promise);
    // Remembered: the same answer object again, handed over without a promise.
    expect(offers.findPublishedWithTag(query)).toBe(first);
    expect((await first).json).toBe(JSON.stringify(await offers.findPublished(query)));
    // Another spelling of the same EANs (blanks) is answered the same but not kept.
    const spaced = await offers.findPublishedWithTag(` ${EANS[1]} , ${EANS[0]}`);
    expect(spaced).toEqual(await first);
    expect(offers.findPublishedWithTag(` ${EANS[1]} , ${EANS[0]}`)).not.toBe(spaced);
    // A change on this node forgets every remembered answer at once.
    await offers.update(String(offer.id), { price: 11 }, SYSTEM);
    const changed = await offers.findPublishedWithTag(query);
    expect(changed).not.toBe(first);
    expect(changed.etag).not.toBe((await first).etag);
    expect(changed.json).toBe(JSON.stringify(await offers.findPublished(query)));
    // A change read from the change log (SQL that bypasses the service) does too.
    await database.db.kysely.updateTable('offers').set({ status: 'sold' }).where('id', '=', offer.id).execute();
    await offers.readModel.sync();
    expect((await offers.findPublishedWithTag(query)).json).toBe('[]');
    // Bounded in entries whoever picks the queries: distinct made-up EANs, each asked twice (the first
    // ask fills the EAN's fragment from the database, the second is answered from memory and kept).
    for (let serial = 0; serial < ANSWER_MEMO_ENTRIES + 50; serial++) {
      const body = `978${String(500_000 + serial).padStart(9, '0')}`;
      await offers.findPublishedWithTag(body + eanCheckDigit(body));
      await offers.findPublishedWithTag(body + eanCheckDigit(body));
    }
    expect(offers.readModel.rememberedAnswers()).toBe(ANSWER_MEMO_ENTRIES);
  });

  it('an answer larger than the memo keeps is answered, not kept', () => {
    const memo = new AnswerMemo();
    const large = { json: `[${'x'.repeat(ANSWER_MEMO_MAX_CHARS)}]`, etag: '"t"' };
    memo.remember('9789001891442', large);
    memo.remember('9789001891442%2C9780194837125', { json: '[]', etag: '"u"' });
    expect(memo.size).toBe(0);
    memo.remember('9789001891442,9780194837125', { json: '[]', etag: '"u"' });
    expect(memo.get('9789001891442,9780194837125')).toEqual({ json: '[]', etag: '"u"' });
  });

  it('every write path lands in the change log: inserts, updates (old and new EAN) and deletes', async () => {
    const node = await start(database.db);
    const { offers } = node.services;
    const before = await database.db.kysely.selectFrom('offer_changes').select('ean').execute();
    const offer = await offers.create({ ean: EANS[2] ?? '', price: 3, condition: 'good' }, SYSTEM);
    await database.db.kysely
      .updateTable('offers')
      .set({ ean: EANS[3] ?? '' })
      .where('id', '=', offer.id)
      .execute();
    await database.db.kysely.deleteFrom('offers').where('id', '=', offer.id).execute();
    const after = await database.db.kysely.selectFrom('offer_changes').select('ean').orderBy('id').execute();
    expect(after.slice(before.length).map((row) => row.ean)).toEqual([EANS[2], EANS[2], EANS[3], EANS[3]]);
  });

  if (engine === 'postgres')
    it('an offer change that commits after a later one is read, and a change read once is not forgotten again', async () => {
      const model = readModelOver(database.db, 100);
      await model.start();
      const [early, late] = [EANS[0] ?? '', EANS[1] ?? ''];
      const offer = (ean: string, identifier: string) => publishedOfferRow(ean, identifier, 700);
      // The slow transaction draws the lower change id, then waits.
      const slow = await openTransaction(database.db.kysely, (trx) =>
        trx
          .insertInto('offers')
          .values(offer(late, 'a'.repeat(32)))
          .execute(),
      );
      expect((await model.published([late])).json).toBe('[]');
      await database.db.kysely
        .insertInto('offers')
        .values(offer(early, 'b'.repeat(32)))
        .execute();
      await model.sync();
      expect((await model.published([early])).json).toContain('b'.repeat(32));
      await slow.commit();
      await model.sync();
      expect((await model.published([late])).json).toContain('a'.repeat(32));
      // Both changes were read: later syncs forget nothing, so both EANs stay answered from memory.
      const misses = model.stats().misses;
      await model.sync();
      await model.sync();
      await model.published([early, late]);
      expect(model.stats().misses).toBe(misses);
      await model.stop();
    });
});
