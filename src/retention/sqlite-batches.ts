/**
 * SQLite's prune batches, split so the delivery path hardly waits: the batch is read outside any
 * write transaction (in WAL a read takes no lock), then deleted in transactions of at most
 * SQLITE_DELETE_CHUNK deliveries, each paced like a batch. Every write transaction on SQLite holds the
 * database's one write lock, and a writer of the delivery path that meets it sleeps in SQLite's busy
 * handler (1, 2, 5, 10 ms...) until it is free; a transaction a tenth as long makes each such meeting
 * cost a tenth as much, and the pacing keeps the share of time the lock is held the same (figures:
 * docs/performance.md#design-measurements). PostgreSQL keeps one transaction per batch: there nothing
 * waits on the prune (its rows are locked with SKIP LOCKED).
 */
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { finishedBefore } from './store.js';

/** Deliveries deleted per write transaction on SQLite. */
export const SQLITE_DELETE_CHUNK = 100;

/** Splits a batch's ids into the write transactions' shares. */
export function deleteChunks(ids: readonly string[], size = SQLITE_DELETE_CHUNK): string[][] {
  const chunks: string[][] = [];
  const step = Math.max(1, size);
  for (let start = 0; start < ids.length; start += step) chunks.push(ids.slice(start, start + step));
  return chunks;
}

/**
 * Those of `ids` still of `status` and finished before `cutoff`, looked up by key. The status is
 * compared as an expression: with it a bound parameter, SQLite's planner otherwise walked every row of
 * that status through deliveries_finished to find the hundred ids (a prune 70 times slower).
 */
export function stillFinished(ids: readonly string[], status: string, cutoff: number): RawBuilder<unknown> {
  return sql`select id from deliveries where id in (${sql.join([...ids])}) and (status || '') = ${status}
    and ${finishedBefore('deliveries', cutoff)}`;
}

/**
 * Deletes those of `ids` still of `status` and finished before `cutoff`, with their attempts: the ids
 * were read before the transaction, so a delivery queued again since (pending) keeps its row and its
 * attempts.
 */
export async function deleteStillFinished(
  trx: Executor,
  ids: readonly string[],
  status: string,
  cutoff: number,
): Promise<{ deliveries: number; attempts: number }> {
  if (ids.length === 0) return { deliveries: 0, attempts: 0 };
  const still = stillFinished(ids, status, cutoff);
  const attempts = await sql`delete from delivery_attempts where delivery_id in (${still})`.execute(trx);
  const deliveries = await sql`delete from deliveries where id in (${still})`.execute(trx);
  return { deliveries: Number(deliveries.numAffectedRows ?? 0), attempts: Number(attempts.numAffectedRows ?? 0) };
}
