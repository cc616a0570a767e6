/**
 * A prune's batches of deliveries, split so the delivery path hardly notices: the batch is read
 * outside any transaction (on SQLite in WAL a read takes no lock), then deleted in transactions of at
 * most PACED_DELETE_CHUNK deliveries, each paced like a batch. Unpaced (PRUNE_PAUSE_MS=0, a maintenance
 * window) a batch is deleted in one transaction, the same way.
 *
 * A writer of the delivery path that meets one of these transactions waits for it: for SQLite's one
 * write lock, or on PostgreSQL for the CPU and WAL flush it takes. A transaction a tenth as long makes
 * each such meeting cost a tenth as much, and the pacing keeps the share of time the prune is busy the
 * same (docs/decisions/0003-paced-prune.md).
 */
import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';
import { finishedBefore } from './store.js';

/** Deliveries deleted per transaction of a paced prune. */
export const PACED_DELETE_CHUNK = 100;

/** Splits a batch's ids into the write transactions' shares. */
export function deleteChunks(ids: readonly string[], size = PACED_DELETE_CHUNK): string[][] {
  const chunks: string[][] = [];
  const step = Math.max(1, size);
  for (let start = 0; start < ids.length; start += step) chunks.push(ids.slice(start, start + step));
  return chunks;
}

/**
 * Those of `ids` still of `status` and finished before `cutoff`, looked up by key. The status is
 * compared as an expression: with it a bound parameter, SQLite's planner otherwise walked every row of
 * that status through deliveries_finished to find the hundred ids (a prune 70 times slower). On
 * PostgreSQL they are locked, skipping any a transaction of the delivery path holds (a delivery being
 * queued again): the delivery path never waits for the prune, and the prune never waits for it.
 */
export function stillFinished(
  ids: readonly string[],
  status: string,
  cutoff: number,
  dialect: Dialect,
): RawBuilder<unknown> {
  return sql`select id from deliveries where id in (${sql.join([...ids])}) and (status || '') = ${status}
    and ${finishedBefore('deliveries', cutoff)} ${dialect.skipLocked}`;
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
  dialect: Dialect,
): Promise<{ deliveries: number; attempts: number }> {
  if (ids.length === 0) return { deliveries: 0, attempts: 0 };
  // The attempts' statement locks the deliveries it keeps (PostgreSQL), so the second finds the same ones.
  const still = stillFinished(ids, status, cutoff, dialect);
  const attempts = await sql`delete from delivery_attempts where delivery_id in (${still})`.execute(trx);
  const deliveries = await sql`delete from deliveries where id in (${still})`.execute(trx);
  return { deliveries: Number(deliveries.numAffectedRows ?? 0), attempts: Number(attempts.numAffectedRows ?? 0) };
}
