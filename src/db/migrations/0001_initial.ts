import type { Migration } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

/** The first schema: every table of the first release. */
export function initial(engine: Engine): Migration {
  return {
    async up(db: UntypedDb) {
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('private_jwk', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('retire_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('clients')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('secret_version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('tokens_valid_after', 'bigint', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('webhook_secret', 'text', (c) => c.notNull())
        .addColumn('previous_webhook_secret', 'text')
        .addColumn('previous_webhook_secret_expires_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      let offers = db.schema.createTable('offers');
      offers =
        engine === 'postgres'
          ? offers.addColumn('id', 'serial', (c) => c.primaryKey())
          : offers.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
      await offers
        .addColumn('ean', 'text', (c) => c.notNull())
        .addColumn('price_cents', 'integer', (c) => c.notNull())
        .addColumn('condition', 'text', (c) => c.notNull())
        .addColumn('remarks', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('offers_ean_status').on('offers').columns(['ean', 'status', 'price_cents']).execute();

      await db.schema
        .createTable('schools')
        .addColumn('identifier', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('location', 'text')
        .addColumn('brin', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('lists')
        .addColumn('identifier', 'text', (c) => c.primaryKey())
        .addColumn('slug', 'text', (c) => c.notNull().unique())
        .addColumn('school_identifier', 'text', (c) => c.notNull().references('schools.identifier'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('comment', 'text')
        .addColumn('school_year', 'integer')
        .addColumn('duo_code', 'text')
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('imported', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('items', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('lists_school').on('lists').columns(['school_identifier', 'status']).execute();

      await db.schema
        .createTable('subscriptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('client_ref', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
        .addColumn('notification_url', 'text', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('event_as_given', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('failing_since', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('subscriptions_unique', ['client_ref', 'notification_url', 'event'])
        .execute();
      await db.schema
        .createIndex('subscriptions_event_status')
        .on('subscriptions')
        .columns(['event', 'status'])
        .execute();

      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('identifier', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
        .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'bigint')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error_class', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('completed_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('deliveries_due')
        .on('deliveries')
        .columns(['status', 'attempt_count', 'next_attempt_at', 'id'])
        .execute();
      await db.schema
        .createIndex('deliveries_subscription')
        .on('deliveries')
        .columns(['subscription_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('delivery_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
        .addColumn('attempt_no', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error_class', 'text')
        .addColumn('error_message', 'text')
        .addColumn('response_body', 'text')
        .execute();
      await db.schema
        .createIndex('delivery_attempts_delivery')
        .on('delivery_attempts')
        .columns(['delivery_id', 'attempt_no'])
        .execute();
    },
    async down(db: UntypedDb) {
      for (const table of [
        'delivery_attempts',
        'deliveries',
        'events',
        'subscriptions',
        'lists',
        'schools',
        'offers',
        'clients',
        'signing_keys',
        'settings',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
