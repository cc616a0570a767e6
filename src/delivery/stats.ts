/**
 * The hourly delivery counters (table delivery_stats, migration 0013), added to where attempts and
 * completions are recorded, in the same transaction: the overview and the /metrics totals read these
 * rows instead of scanning the history. Each process adds to a shard of its own (a random one of
 * STATS_SHARDS), so two PostgreSQL workers never wait on each other's row; readers sum the shards.
 */
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

export const HOUR_MS = 3_600_000;
export const STATS_SHARDS = 8;
/** This process's row of each hour. */
export const STATS_SHARD = randomInt(STATS_SHARDS);

export const hourStart = (ms: number): number => ms - (ms % HOUR_MS);

export interface StatsDelta {
  attemptsOk?: number;
  attemptsFailed?: number;
  succeeded?: number;
  failed?: number;
}

/** Adds to the counters of the hour `now` falls in. */
export async function addStats(db: Executor, now: number, delta: StatsDelta): Promise<void> {
  const row = {
    attempts_ok: delta.attemptsOk ?? 0,
    attempts_failed: delta.attemptsFailed ?? 0,
    succeeded: delta.succeeded ?? 0,
    failed: delta.failed ?? 0,
  };
  if (row.attempts_ok + row.attempts_failed + row.succeeded + row.failed === 0) return;
  // One fixed text (the values are parameters), so SQLite's statement cache keeps it prepared: built
  // with the query builder it cost a group commit about ten times as much as this upsert itself
  // (docs/performance.md#decisions).
  await sql`
    insert into delivery_stats (hour, shard, attempts_ok, attempts_failed, succeeded, failed)
    values (${hourStart(now)}, ${STATS_SHARD}, ${row.attempts_ok}, ${row.attempts_failed}, ${row.succeeded}, ${row.failed})
    on conflict (hour, shard) do update
    set attempts_ok = delivery_stats.attempts_ok + excluded.attempts_ok,
        attempts_failed = delivery_stats.attempts_failed + excluded.attempts_failed,
        succeeded = delivery_stats.succeeded + excluded.succeeded,
        failed = delivery_stats.failed + excluded.failed`.execute(db);
}

/** Counts failed attempts of a subscription since its last success (column consecutive_failures). */
export async function addConsecutiveFailures(db: Executor, subscriptionId: string, failed: number): Promise<void> {
  if (failed <= 0) return;
  await db
    .updateTable('subscriptions')
    .set({ consecutive_failures: sql`consecutive_failures + ${failed}` })
    .where('id', '=', subscriptionId)
    .execute();
}

/**
 * Takes a finished delivery back out of its hour's counters when it is queued again (a retry by
 * hand, a recovery): the counters then say how many deliveries of the hour are still succeeded or
 * failed, as the rows do. An hour whose counters were pruned is left alone.
 */
export async function uncountFinished(
  db: Executor,
  finished: readonly { status: string; completed_at: number | null }[],
): Promise<void> {
  const byHour = new Map<number, { succeeded: number; failed: number }>();
  for (const row of finished) {
    if (row.completed_at === null || (row.status !== 'succeeded' && row.status !== 'failed')) continue;
    const hour = hourStart(Number(row.completed_at));
    const counts = byHour.get(hour) ?? { succeeded: 0, failed: 0 };
    counts[row.status] += 1;
    byHour.set(hour, counts);
  }
  for (const [hour, counts] of byHour) {
    await sql`
      insert into delivery_stats (hour, shard, attempts_ok, attempts_failed, succeeded, failed)
      select cast(${hour} as bigint), cast(${STATS_SHARD} as integer), 0, 0,
             cast(${-counts.succeeded} as integer), cast(${-counts.failed} as integer)
      where exists (select 1 from delivery_stats where hour = ${hour})
      on conflict (hour, shard) do update
      set succeeded = delivery_stats.succeeded + excluded.succeeded, failed = delivery_stats.failed + excluded.failed`.execute(
      db,
    );
  }
}
