import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * Which failing period of a subscription was announced (subscription.failing goes out once per
 * period): the period's failing_since, and when it was announced. A table of its own, so the
 * subscriptions table keeps its shape.
 */
export const subscriptionNotices: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('subscription_notices')
      .addColumn('subscription_id', 'text', (c) => c.primaryKey().references('subscriptions.id').onDelete('cascade'))
      .addColumn('failing_since', 'bigint', (c) => c.notNull())
      .addColumn('noticed_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: UntypedDb) {
    await db.schema.dropTable('subscription_notices').ifExists().execute();
  },
};
