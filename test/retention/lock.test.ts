/**
 * How a prune runs: in batches of PRUNE_BATCH_SIZE with a pause between them, one pruner at a time
 * (two at once: one prunes, the other is told it is busy), a stop between batches, and the worker
 * role's pruner that skips its turn when another node pruned within the interval.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { type Config, testConfig } from '../../src/config.js';
import { LEASE_MS, LEASE_SETTING } from '../../src/retention/lock.js';
import { startPruner } from '../../src/retention/pruner.js';
import { type PruneOutcome, RetentionService } from '../../src/retention/service.js';
import { describeEachEngine, type TestDatabase } from '../support/engines.js';
import { DAY, type History, NOW, rowCount, useHistoryFixture } from './support.js';

const OLD = 100 * DAY;

describeEachEngine('retention: batches and the one-node lock', (engine) => {
  let database: TestDatabase;
  let clock: ManualClock;
  let history: History;

  useHistoryFixture(engine, (fixture) => {
    ({ database, clock, history } = fixture);
  });

  const service = (pause: (heldMs: number) => Promise<void> = async () => undefined, overrides: Partial<Config> = {}) =>
    new RetentionService({
      db: database.db,
      config: testConfig({ pruneBatchSize: 10, prunePauseMs: 0, ...overrides }),
      clock,
      pause,
    });

  /** `count` succeeded deliveries older than retention, each on its own old event. */
  async function oldDeliveries(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const n = String(i).padStart(3, '0');
      await history.event(`evt_${n}`, NOW - OLD + i);
      await history.delivery({
        id: `dlv_${n}`,
        event: `evt_${n}`,
        status: 'succeeded',
        createdAt: NOW - OLD + i,
        completedAt: NOW - OLD + i,
      });
    }
  }

  it('deletes in batches of PRUNE_BATCH_SIZE, pausing between them', async () => {
    await oldDeliveries(25);
    const seen: number[] = [];
    const held: number[] = [];
    // Each pause sees the deliveries left after the batch before it, and how long that batch took.
    const outcome = await service(async (heldMs) => {
      seen.push(await rowCount(database.db, 'deliveries'));
      held.push(heldMs);
    }).prune();
    expect(outcome.status === 'pruned' ? outcome.record.rows : undefined).toMatchObject({
      deliveries: 25,
      delivery_attempts: 25,
      events: 25,
    });
    // Deliveries: batches of 10, 10, 5 (two pauses); events: 10, 10, 5 (two more).
    expect(seen).toEqual([15, 5, 0, 0]);
    expect(held.every((ms) => ms > 0)).toBe(true);
  });

  it('two pruners at once: one prunes, the other is told the lock is held; afterwards the lock is free', async () => {
    await oldDeliveries(25);
    let second: Promise<PruneOutcome> | undefined;
    const first = await service(async () => {
      second ??= service().prune();
      await second;
    }).prune();
    expect(first.status).toBe('pruned');
    expect(await second).toEqual({ status: 'busy' });
    expect(first.status === 'pruned' ? first.record.rows.deliveries : 0).toBe(25);
    expect(await rowCount(database.db, 'deliveries')).toBe(0);
    const third = await service().prune();
    expect(third.status).toBe('pruned');
  });

  it('a stop between batches ends the prune early; it is recorded as incomplete and the next prune goes on', async () => {
    await oldDeliveries(25);
    let stop = false;
    const retention = service(async () => {
      stop = true;
    });
    const outcome = await retention.prune({ stopped: () => stop });
    expect(outcome.status === 'pruned' ? [outcome.record.complete, outcome.record.rows.deliveries] : []).toEqual([
      false,
      10,
    ]);
    expect((await retention.lastPrune())?.complete).toBe(false);
    expect(await rowCount(database.db, 'deliveries')).toBe(15);
    await service().prune();
    expect(await rowCount(database.db, 'deliveries')).toBe(0);
    expect((await retention.lastPrune())?.complete).toBe(true);
  });

  it.runIf(engine === 'sqlite')(
    'SQLite: a live lease of another process makes a prune busy; an expired one is taken over',
    async () => {
      await oldDeliveries(3);
      const lease = (until: number) =>
        database.db.kysely
          .insertInto('settings')
          .values({ key: LEASE_SETTING, value: JSON.stringify({ owner: 'elsewhere/1/x', until }) })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({ value: JSON.stringify({ owner: 'elsewhere/1/x', until }) }),
          )
          .execute();
      await lease(NOW + LEASE_MS);
      expect(await service().prune()).toEqual({ status: 'busy' });
      expect(await rowCount(database.db, 'deliveries')).toBe(3);
      await lease(NOW - 1);
      expect((await service().prune()).status).toBe('pruned');
      expect(await rowCount(database.db, 'deliveries')).toBe(0);
      // The lease is given back at the end.
      expect(
        await database.db.kysely.selectFrom('settings').select('key').where('key', '=', LEASE_SETTING).execute(),
      ).toEqual([]);
    },
  );

  it.runIf(engine === 'postgres')(
    'PostgreSQL: an advisory lock held by another session makes a prune busy',
    async () => {
      await oldDeliveries(3);
      await database.db.kysely.connection().execute(async (other) => {
        await sql`select pg_advisory_lock(${0x5e1f_0001}, hashtext(current_schema()))`.execute(other);
        expect(await service().prune()).toEqual({ status: 'busy' });
        await sql`select pg_advisory_unlock(${0x5e1f_0001}, hashtext(current_schema()))`.execute(other);
      });
      expect((await service().prune()).status).toBe('pruned');
      expect(await rowCount(database.db, 'deliveries')).toBe(0);
    },
  );

  it('the worker role prunes soon after start, then skips its turn while another node pruned within the interval', async () => {
    await oldDeliveries(3);
    const logged: string[] = [];
    const logger = { info: (_: object, message: string) => logged.push(message), error: () => logged.push('error') };
    const pruner = startPruner(service(), clock, { logger, intervalMs: 3_600_000, firstDelayMs: 5 });
    await expect.poll(() => logged, { timeout: 5000 }).toEqual(['pruned']);
    await pruner.stop();
    expect(await rowCount(database.db, 'deliveries')).toBe(0);

    // Another node, half an hour later: the shared record says a prune finished 30 minutes ago.
    await oldDeliveries(3);
    clock.advance(1_800_000);
    const other = startPruner(service(), clock, { logger, intervalMs: 3_600_000, firstDelayMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await other.stop();
    expect(logged).toEqual(['pruned']);
    expect(await rowCount(database.db, 'deliveries')).toBe(3);
  });
});
