import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

/**
 * Offer events: offers gain a public, stable `identifier` (32 lower-case hex, like schools
 * and lists) for the webhook payload, and `published_at` (first publication) so `offer.status` can
 * tell a published offer's later life from a draft's. Subscriptions to offer events may carry a
 * filter: `filter` is its JSON as echoed, `filter_list` the list whose current items it follows, and
 * `subscription_filter_eans` its EANs, so the outbox fans out with one join per batch.
 */
export function offerIdentifiers(engine: Engine): Migration {
  return {
    async up(db: UntypedDb) {
      await db.schema.alterTable('offers').addColumn('identifier', 'text').execute();
      await db.schema.alterTable('offers').addColumn('published_at', 'bigint').execute();
      // Existing offers get random identifiers; new ones get theirs from src/ids.ts.
      if (engine === 'postgres') {
        await sql`update offers set identifier = replace(gen_random_uuid()::text, '-', '')`.execute(db);
        await sql`alter table offers alter column identifier set not null`.execute(db);
      } else {
        await sql`update offers set identifier = lower(hex(randomblob(16)))`.execute(db);
      }
      // Offers that are published, reserved or sold were published once; drafts and withdrawn ones count as never.
      await sql`update offers set published_at = updated_at where status in ('published', 'reserved', 'sold')`.execute(
        db,
      );
      await db.schema.createIndex('offers_identifier').unique().on('offers').column('identifier').execute();

      await db.schema.alterTable('subscriptions').addColumn('filter', 'text').execute();
      await db.schema.alterTable('subscriptions').addColumn('filter_list', 'text').execute();
      await db.schema.createIndex('subscriptions_filter_list').on('subscriptions').column('filter_list').execute();
      await db.schema
        .createTable('subscription_filter_eans')
        .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
        .addColumn('ean', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('subscription_filter_eans_pk', ['subscription_id', 'ean'])
        .execute();
      await db.schema
        .createIndex('subscription_filter_eans_ean')
        .on('subscription_filter_eans')
        .column('ean')
        .execute();
    },
    async down(db: UntypedDb) {
      await db.schema.dropTable('subscription_filter_eans').ifExists().execute();
      await db.schema.dropIndex('subscriptions_filter_list').ifExists().execute();
      await db.schema.alterTable('subscriptions').dropColumn('filter_list').execute();
      await db.schema.alterTable('subscriptions').dropColumn('filter').execute();
      await db.schema.dropIndex('offers_identifier').ifExists().execute();
      await db.schema.alterTable('offers').dropColumn('published_at').execute();
      await db.schema.alterTable('offers').dropColumn('identifier').execute();
    },
  };
}
