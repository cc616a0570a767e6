import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/** Remembered answers for Idempotency-Key (src/idempotency): one row per owner and key, kept 24 h. */
export const idempotencyKeys: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('response_headers', 'text')
      .addColumn('response_body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
  },
  async down(db: UntypedDb) {
    await db.schema.dropTable('idempotency_keys').ifExists().execute();
  },
};
