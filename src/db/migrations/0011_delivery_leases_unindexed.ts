import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

/**
 * A claim no longer touches an index. The lease index existed only so a claim could count the live
 * leases of each subscription (the per-subscription cap); the worker now counts its own leases
 * (delivery/lease-tally.ts) and passes them with the claim. With no index over the lease columns, a
 * claim changes no indexed column, so on PostgreSQL it is a HOT update: the new row version stays on
 * its page and no index gets an entry (before: four per claimed row). The table keeps a fifth of each
 * page free for those versions (fillfactor 80; pages written before keep their old packing).
 * Measured with bench/db-costs.ts: cheaper claims, less PostgreSQL CPU a delivery, and faster
 * interleaved drains by one worker (docs/performance.md#decisions).
 */
export function deliveryLeasesUnindexed(engine: Engine): Migration {
  return {
    async up(db: UntypedDb) {
      await db.schema.dropIndex('deliveries_lease').ifExists().execute();
      if (engine === 'postgres') await sql`alter table deliveries set (fillfactor = 80)`.execute(db);
    },
    async down(db: UntypedDb) {
      if (engine === 'postgres') await sql`alter table deliveries reset (fillfactor)`.execute(db);
      await sql`create index deliveries_lease on deliveries (lease_until, subscription_id) where lease_until is not null`.execute(
        db,
      );
    },
  };
}
