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
  await db
    .insertInto('delivery_stats')
    .values({ hour: hourStart(now), shard: STATS_SHARD, ...row })
    .onConflict((conflict) =>
      conflict.columns(['hour', 'shard']).doUpdateSet({
        attempts_ok: sql`delivery_stats.attempts_ok + excluded.attempts_ok`,
        attempts_failed: sql`delivery_stats.attempts_failed + excluded.attempts_failed`,
        succeeded: sql`delivery_stats.succeeded + excluded.succeeded`,
        failed: sql`delivery_stats.failed + excluded.failed`,
      }),
    )
    .execute();
}

/** Counts deliveries of a subscription that failed for good since its last success. */
export async function addConsecutiveFailures(db: Executor, subscriptionId: string, failed: number): Promise<void> {
  if (failed <= 0) return;
  await db
    .updateTable('subscriptions')
    .set({ consecutive_failures: sql`consecutive_failures + ${failed}` })
    .where('id', '=', subscriptionId)
    .execute();
}
