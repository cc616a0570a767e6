import { type Migration, sql } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * The delivery worker's indexes hold only the rows it looks for. The due index had every delivery
 * ever made, and took a new entry each time a row was claimed and again when it was completed; the
 * lease index took one for every completion too (a cleared lease). Now each lane has a partial index
 * of its pending rows, and the lease index only rows with a lease, so a completion adds no entry to
 * either and a claim one to each. Measured on a drain by the worker with an instant sender: less
 * PostgreSQL CPU a delivery, cheaper completion batches, and cheaper claims on SQLite (figures:
 * docs/performance.md#decisions). The counts by status that the console reads now scan the
 * table, which they mostly did already (counts over every status).
 */
export const deliveryPartialIndexes: Migration = {
  async up(db: UntypedDb) {
    await db.schema.dropIndex('deliveries_due').ifExists().execute();
    await sql`create index deliveries_due_first on deliveries (next_attempt_at, id) where status = 'pending' and attempt_count = 0`.execute(
      db,
    );
    await sql`create index deliveries_due_retry on deliveries (next_attempt_at, id) where status = 'pending' and attempt_count > 0`.execute(
      db,
    );
    await db.schema.dropIndex('deliveries_lease').ifExists().execute();
    await sql`create index deliveries_lease on deliveries (lease_until, subscription_id) where lease_until is not null`.execute(
      db,
    );
  },
  async down(db: UntypedDb) {
    await db.schema.dropIndex('deliveries_due_first').ifExists().execute();
    await db.schema.dropIndex('deliveries_due_retry').ifExists().execute();
    await db.schema.dropIndex('deliveries_lease').ifExists().execute();
    await db.schema
      .createIndex('deliveries_due')
      .on('deliveries')
      .columns(['status', 'attempt_count', 'next_attempt_at', 'id'])
      .execute();
    await db.schema
      .createIndex('deliveries_lease')
      .on('deliveries')
      .columns(['lease_until', 'subscription_id'])
      .execute();
  },
};
