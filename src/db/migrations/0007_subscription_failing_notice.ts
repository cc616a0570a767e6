import type { Migration } from 'kysely';
import type { AnyDb } from './index.js';

/**
 * When subscription.failing was last announced for a subscription: it is announced once per failing
 * period, i.e. again only when the current run of failures began after this instant.
 */
export const subscriptionFailingNotice: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('subscriptions').addColumn('failing_noticed_at', 'bigint').execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable('subscriptions').dropColumn('failing_noticed_at').execute();
  },
};
