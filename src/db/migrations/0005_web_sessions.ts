import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * Browser sign-in: one-time portal links (stored as hashes only) and the sessions of the partner
 * portal and the operator console (keyed by the hash of the cookie value, so a database leak hands
 * out no live session).
 */
export const webSessions: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('portal_links')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('client_ref', 'text', (c) => c.notNull().references('clients.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema
      .createTable('web_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('client_ref', 'text', (c) => c.references('clients.id'))
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('web_sessions_last_seen').on('web_sessions').column('last_seen_at').execute();
  },
  async down(db: UntypedDb) {
    await db.schema.dropTable('web_sessions').ifExists().execute();
    await db.schema.dropTable('portal_links').ifExists().execute();
  },
};
