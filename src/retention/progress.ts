/**
 * A prune as it goes, for whoever watches it (`shelfmark prune`): rows removed so far per target
 * against what a dry run counted at the start, and the work left. The time a prune takes goes by its
 * transactions, not its rows: paced, each is followed by a pause of at least PRUNE_PAUSE_MS, and one
 * transaction removes 100 deliveries with their attempts where one of events removes a whole batch.
 * So the time left is the transactions left times what each has taken so far.
 */
import { PRUNE_TARGETS, type PruneTarget } from './policy.js';

export interface PrunePacing {
  /** False in a maintenance window (`--unpaced`, PRUNE_PAUSE_MS=0): batches back to back. */
  paced: boolean;
  /** The least pause after a transaction (PRUNE_PAUSE_MS); 0 unpaced. */
  pauseMs: number;
  /** PRUNE_BATCH_SIZE: rows of a transaction, deliveries apart. */
  batchSize: number;
  /** Deliveries deleted per transaction. */
  deleteChunk: number;
}

export interface PruneProgress {
  /** What a dry run counted when the prune started, per target. */
  expected: Record<PruneTarget, number>;
  /** Removed so far per target (response_bodies: answers cleared). */
  done: Record<PruneTarget, number>;
  /** Transactions so far; 0 when the prune starts. */
  transactions: number;
  pacing: PrunePacing;
}

/** Rows of a target one transaction takes: attempts go in their deliveries' transactions. */
const perTransaction = (target: PruneTarget, pacing: PrunePacing): number | undefined =>
  target === 'delivery_attempts' ? undefined : target === 'deliveries' ? pacing.deleteChunk : pacing.batchSize;

/** The transactions the rows not yet removed need, by the pacing's shares. */
export function transactionsLeft(progress: PruneProgress): number {
  let left = 0;
  for (const target of PRUNE_TARGETS) {
    const per = perTransaction(target, progress.pacing);
    if (per === undefined) continue;
    left += Math.ceil(Math.max(0, progress.expected[target] - progress.done[target]) / Math.max(1, per));
  }
  return left;
}

/** The share of the work done, 0 to 1, in transactions (what the time goes by). */
export function shareDone(progress: PruneProgress): number {
  const total = progress.transactions + transactionsLeft(progress);
  return total === 0 ? 1 : progress.transactions / total;
}

/**
 * Seconds left after `elapsedMs` of the prune: the transactions left times the mean so far. Before the
 * first, a paced prune's least time (every transaction followed by PRUNE_PAUSE_MS); undefined unpaced.
 */
export function secondsLeft(progress: PruneProgress, elapsedMs: number): number | undefined {
  const left = transactionsLeft(progress);
  if (left === 0) return 0;
  if (progress.transactions > 0) return (left * elapsedMs) / progress.transactions / 1000;
  return progress.pacing.paced ? (left * progress.pacing.pauseMs) / 1000 : undefined;
}

/** Rows per target, every target present, from items that may name a target more than once. */
export function rowsByTarget(items: readonly { table: PruneTarget; rows: number }[]): Record<PruneTarget, number> {
  const rows = Object.fromEntries(PRUNE_TARGETS.map((target) => [target, 0])) as Record<PruneTarget, number>;
  for (const item of items) rows[item.table] += item.rows;
  return rows;
}
