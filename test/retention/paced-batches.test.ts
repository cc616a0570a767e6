/**
 * A paced prune reads a batch outside any transaction (on SQLite: without the write lock) and deletes it
 * in short transactions (src/retention/paced-batches.ts): a delivery queued again between the read and
 * the delete keeps its row and its attempts, and a batch is split into transactions of at most
 * PACED_DELETE_CHUNK, on both engines; unpaced, a batch is one transaction.
 */

import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { type Db, DIALECTS } from '../../src/db/database.js';
import {
  deleteChunks,
  deleteStillFinished,
  PACED_DELETE_CHUNK,
  stillFinished,
} from '../../src/retention/paced-batches.js';
import { RetentionService } from '../../src/retention/service.js';
import { describeEachEngine, type TestDatabase } from '../support/engines.js';
import { column, DAY, type History, historyFixture, NOW, rowCount } from './support.js';

it('splits a batch into transactions of at most PACED_DELETE_CHUNK deliveries, in order', () => {
  const ids = Array.from({ length: 250 }, (_, i) => `dlv_${String(i).padStart(3, '0')}`);
  const chunks = deleteChunks(ids);
  expect(PACED_DELETE_CHUNK).toBe(100);
  expect(chunks.map((chunk) => chunk.length)).toEqual([100, 100, 50]);
  expect(chunks.flat()).toEqual(ids);
  expect(deleteChunks([])).toEqual([]);
});

describeEachEngine('retention: deleting a batch read before its transaction', (engine) => {
  let database: TestDatabase;
  let history: History;
  let clock: ManualClock;
  /** Three deliveries succeeded 40 days ago and one young one, all of one old event. */
  const seed = async (history: History): Promise<void> => {
    await history.event('evt_old', NOW - 40 * DAY);
    for (const id of ['dlv_a', 'dlv_b', 'dlv_c'])
      await history.delivery({
        id,
        event: 'evt_old',
        status: 'succeeded',
        createdAt: NOW - 40 * DAY,
        completedAt: NOW - 40 * DAY + 5,
      });
    await history.delivery({
      id: 'dlv_young',
      event: 'evt_old',
      status: 'succeeded',
      createdAt: NOW - 40 * DAY,
      completedAt: NOW - DAY,
    });
  };
  beforeEach(async () => {
    ({ database, history, clock } = await historyFixture(engine));
    await seed(history);
  });
  afterEach(() => database.drop());

  it('deletes the finished ones with their attempts; one queued again meanwhile keeps its row and attempts', async () => {
    const db = database.db;
    // Read as the batch (before the transaction); then dlv_b is queued again by hand.
    const batch = ['dlv_a', 'dlv_b', 'dlv_c', 'dlv_young'];
    await db.kysely
      .updateTable('deliveries')
      .set({ status: 'pending', completed_at: null, next_attempt_at: NOW })
      .where('id', '=', 'dlv_b')
      .execute();
    const deleted = await db.kysely
      .transaction()
      .execute((trx) => deleteStillFinished(trx, batch, 'succeeded', NOW - 30 * DAY, DIALECTS[engine]));
    expect(deleted).toEqual({ deliveries: 2, attempts: 2 });
    expect(await column(db, 'deliveries')).toEqual(['dlv_b', 'dlv_young']);
    expect(await column(db, 'delivery_attempts')).toEqual(['dlv_b_a1', 'dlv_young_a1']);
  });

  it(
    engine === 'postgres'
      ? 'skips a delivery another transaction holds (being queued again) instead of waiting for it'
      : 'SQLite: one writer at a time, so nothing can hold a delivery meanwhile',
    async () => {
      const db = database.db;
      if (engine === 'sqlite') {
        expect(stillFinished(['dlv_a'], 'succeeded', NOW, DIALECTS[engine]).compile(db.kysely).sql).not.toMatch(
          /for update/,
        );
        return;
      }
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = (): void => undefined;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = db.kysely.transaction().execute(async (trx) => {
        await sql`select id from deliveries where id = 'dlv_a' for update`.execute(trx);
        locked();
        await held;
      });
      await isLocked;
      try {
        const deleted = await db.kysely
          .transaction()
          .execute((trx) =>
            deleteStillFinished(trx, ['dlv_a', 'dlv_c'], 'succeeded', NOW - 30 * DAY, DIALECTS[engine]),
          );
        expect(deleted).toEqual({ deliveries: 1, attempts: 1 });
      } finally {
        release();
        await holder;
      }
      expect(await column(db, 'deliveries')).toEqual(['dlv_a', 'dlv_b', 'dlv_young']);
      expect(await column(db, 'delivery_attempts')).toEqual(['dlv_a_a1', 'dlv_b_a1', 'dlv_young_a1']);
    },
  );

  it('looks the batch up by key, never down the index of its status', async () => {
    const query = stillFinished(['dlv_a', 'dlv_c'], 'succeeded', NOW, DIALECTS[engine]);
    if (engine === 'sqlite') {
      const plan = await sql<{ detail: string }>`explain query plan ${query}`.execute(database.db.kysely);
      expect(plan.rows.map((row) => row.detail)).toEqual([
        'SEARCH deliveries USING INDEX sqlite_autoindex_deliveries_1 (id=?)',
      ]);
    } else {
      const plan = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(database.db.kysely);
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/deliveries_pkey/);
    }
    expect((await query.execute(database.db.kysely)).rows).toEqual([{ id: 'dlv_a' }, { id: 'dlv_c' }]);
  });

  it('a paced prune deletes a batch in transactions of at most 100, unpaced in one; the same rows go', async () => {
    const oldOnes = async (history: History): Promise<void> => {
      for (let i = 0; i < 250; i++)
        await history.delivery({
          id: `dlv_old_${String(i).padStart(3, '0')}`,
          event: 'evt_old',
          status: 'succeeded',
          createdAt: NOW - 40 * DAY,
          completedAt: NOW - 40 * DAY + 5,
        });
    };
    await oldOnes(history);
    const unpaced = await historyFixture(engine);
    await seed(unpaced.history);
    await oldOnes(unpaced.history);
    const pausesOf = async (db: Db, prunePauseMs: number): Promise<number[]> => {
      const pauses: number[] = [];
      const retention = new RetentionService({
        db,
        config: testConfig({ prunePauseMs, pruneBatchSize: 1000 }),
        clock,
        pause: async (heldMs) => {
          pauses.push(heldMs);
        },
      });
      expect((await retention.prune()).status).toBe('pruned');
      expect(await column(db, 'deliveries')).toEqual(['dlv_young']);
      expect(await rowCount(db, 'delivery_attempts')).toBe(1);
      return pauses;
    };
    // 253 old deliveries in one batch: 100 + 100 + 53, a pause between transactions.
    expect(await pausesOf(database.db, 1)).toHaveLength(2);
    // A maintenance window: the batch in one transaction, nothing to pause between.
    expect(await pausesOf(unpaced.database.db, 0)).toHaveLength(0);
    await unpaced.database.drop();
  });

  it('deletes nothing for an empty batch or a status the rows no longer have', async () => {
    const db = database.db;
    const none = await db.kysely
      .transaction()
      .execute((trx) => deleteStillFinished(trx, [], 'succeeded', NOW, DIALECTS[engine]));
    expect(none).toEqual({ deliveries: 0, attempts: 0 });
    const other = await db.kysely
      .transaction()
      .execute((trx) => deleteStillFinished(trx, ['dlv_a', 'dlv_c'], 'failed', NOW, DIALECTS[engine]));
    expect(other).toEqual({ deliveries: 0, attempts: 0 });
    expect(await column(db, 'deliveries')).toEqual(['dlv_a', 'dlv_b', 'dlv_c', 'dlv_young']);
  });
});
