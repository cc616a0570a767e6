/**
 * The rules shared by the trigger-written change logs (offer_changes, migration 0003; school_changes,
 * migration 0010) and the in-process views that follow them (offers/read-model.ts, lml/school-directory.ts).
 */
import type { Engine } from './database.js';

/** PostgreSQL draws change ids before commit; a commit this late after its id was drawn is still seen. */
export const LATE_COMMIT_WINDOW_MS = 30_000;
/** Change-log rows are kept this long; a node that could not read the log for half of it starts afresh. */
export const CHANGES_KEPT_MS = 10 * 60_000;
/** A node prunes the log at most this often. */
export const PRUNE_EVERY_MS = 60_000;

/**
 * Entries recorded at or after this instant are read again even below the cursor (late commits on
 * PostgreSQL); SQLite commits in id order, so it never needs to.
 */
export function lateCommitsSince(engine: Engine, now: number): number {
  return engine === 'postgres' ? now - LATE_COMMIT_WINDOW_MS : Number.MAX_SAFE_INTEGER;
}
