import { type Migration, sql } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * A completion no longer moves a delivery within the per-subscription index. Migration 0013 keyed
 * `deliveries_subscription` by (subscription_id, status, created_at, id), so every completion deleted
 * its row's entry from the subscription's pending range and inserted it into the succeeded one: on
 * SQLite a group commit of 18 wrote 37 WAL pages instead of 12, two thirds of them this index, and the
 * worker's CPU a delivery rose by half (bench/db-costs.ts; docs/performance.md#decisions).
 * Now:
 * - `deliveries_subscription (subscription_id, created_at, id)`: a subscription's log, newest first,
 *   all statuses in one walk; a completion changes none of its columns.
 * - `deliveries_subscription_failed (subscription_id, created_at, id) where status = 'failed'`: a
 *   subscription's failed deliveries (its log filtered to failed, the failure recount, a recovery); it
 *   takes an entry only when a delivery fails for good.
 * A subscription's pending rows are read through the due indexes (the queue, bounded by the backlog),
 * and its succeeded ones down `deliveries_subscription`, skipping the few rows that are not.
 */
export const completionKeepsSubscriptionIndex: Migration = {
  async up(db: UntypedDb) {
    await db.schema.dropIndex('deliveries_subscription').ifExists().execute();
    await db.schema
      .createIndex('deliveries_subscription')
      .on('deliveries')
      .columns(['subscription_id', 'created_at', 'id'])
      .execute();
    await sql`create index deliveries_subscription_failed on deliveries (subscription_id, created_at, id) where status = 'failed'`.execute(
      db,
    );
  },
  async down(db: UntypedDb) {
    await db.schema.dropIndex('deliveries_subscription_failed').ifExists().execute();
    await db.schema.dropIndex('deliveries_subscription').ifExists().execute();
    await db.schema
      .createIndex('deliveries_subscription')
      .on('deliveries')
      .columns(['subscription_id', 'status', 'created_at', 'id'])
      .execute();
  },
};
