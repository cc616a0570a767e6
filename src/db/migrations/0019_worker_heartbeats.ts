import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * Worker processes announce themselves: one row per process that runs delivery workers (`--role
 * worker` or `all`), written when it starts and refreshed every WORKER_HEARTBEAT_SECONDS. The overview
 * and /metrics count the rows seen lately, so deliveries waiting with no worker alive are visible on
 * every node. `last_seen_at` is indexed: those reads and the pruning of long-gone rows walk it.
 */
export const workerHeartbeats: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('worker_heartbeats')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('stopped_at', 'bigint')
      .execute();
    await db.schema.createIndex('worker_heartbeats_seen').on('worker_heartbeats').column('last_seen_at').execute();
  },
  async down(db: UntypedDb) {
    await db.schema.dropIndex('worker_heartbeats_seen').ifExists().execute();
    await db.schema.dropTable('worker_heartbeats').ifExists().execute();
  },
};
