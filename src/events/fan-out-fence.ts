/**
 * The seam between a replay and live fan-out (PostgreSQL). A writer's fan-out reads the active
 * subscriptions inside its transaction; one that read them just before a new subscription committed
 * does not deliver to it, and its events may commit after the replay has read the feed. So every
 * writer holds this advisory lock shared from just before its fan-out until it commits, and a replay
 * takes it exclusively once after its subscription committed: when it has it, every fan-out that could
 * have missed the subscription has committed, and the replay's read of the feed includes its events.
 * A fan-out that starts later reads the subscription (a statement after the lock sees every commit
 * before it). SQLite needs none of it: one writer at a time.
 */
import type { Db, Dialect, Executor } from '../db/database.js';

/**
 * An arbitrary constant of this service's advisory lock space ('SMFO'), with the schema's hash as the
 * second key: advisory locks are per database, and schemas of one database (tests, several
 * deployments) must not wait for each other.
 */
const FAN_OUT_FENCE = 0x534d464f;

/** Writers, right before their fan-out (PostgreSQL). */
export async function enterFanOut(trx: Executor, dialect: Dialect): Promise<void> {
  await dialect.transactionLock(trx, FAN_OUT_FENCE, 'shared');
}

/** A replay, after its subscription committed: waits for every fan-out in progress to commit. */
export async function awaitFanOuts(db: Db): Promise<void> {
  if (db.dialect.serialWriters) return;
  await db.kysely.transaction().execute((trx) => db.dialect.transactionLock(trx, FAN_OUT_FENCE, 'exclusive'));
}
