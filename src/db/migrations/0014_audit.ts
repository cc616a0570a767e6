import { type Migration, sql } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * The audit log: one append-only record per state change, each chained to the one before
 * by a SHA-256 hash (src/audit/canonical.ts). `audit_chain` holds the chain's head in one row that
 * every writer locks within its transaction, so two nodes never append to the same link; after a
 * prune it also holds the anchor, the hash of the last record pruned, from which verification starts.
 */
/** The hash the first record chains to (64 zeros); written here as a value, so the migration stays as it ran. */
const GENESIS_HASH = '0'.repeat(64);

export const audit: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('audit_records')
      .addColumn('seq', 'bigint', (c) => c.primaryKey())
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('request_id', 'text')
      .addColumn('actor_type', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text')
      .addColumn('actor_name', 'text')
      .addColumn('role', 'text')
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('changes', 'text', (c) => c.notNull())
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    // The History panels (one target), the action filter, and the time bounds (filters, retention).
    await db.schema
      .createIndex('audit_records_target')
      .on('audit_records')
      .columns(['target_type', 'target_id', 'seq'])
      .execute();
    await db.schema.createIndex('audit_records_action').on('audit_records').columns(['action', 'seq']).execute();
    await db.schema.createIndex('audit_records_at').on('audit_records').columns(['at']).execute();
    await db.schema
      .createTable('audit_chain')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('last_seq', 'bigint', (c) => c.notNull())
      .addColumn('last_hash', 'text', (c) => c.notNull())
      .addColumn('anchor_seq', 'bigint', (c) => c.notNull())
      .addColumn('anchor_hash', 'text', (c) => c.notNull())
      .execute();
    await sql`insert into audit_chain (id, last_seq, last_hash, anchor_seq, anchor_hash) values (1, 0, ${GENESIS_HASH}, 0, ${GENESIS_HASH})`.execute(
      db,
    );
  },
  async down(db: UntypedDb) {
    await db.schema.dropTable('audit_chain').ifExists().execute();
    await db.schema.dropTable('audit_records').ifExists().execute();
  },
};
