import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/** Live leases per subscription are counted from this index alone when claiming (per-subscription caps). */
export const deliveryLeases: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createIndex('deliveries_lease')
      .on('deliveries')
      .columns(['lease_until', 'subscription_id'])
      .execute();
  },
  async down(db: UntypedDb) {
    await db.schema.dropIndex('deliveries_lease').ifExists().execute();
  },
};
