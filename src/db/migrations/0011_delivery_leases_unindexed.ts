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
 * Measured with bench/db-costs.ts (claims of 64, groups of 18, cap 16): a claim 3.57 → 2.35 ms,
 * PostgreSQL CPU per delivery 91 → 70 µs; interleaved drains by one worker 7,181 → 8,136 deliveries/s.
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
