/**
 * Schema migrations, kept in code so the compiled build carries them. One list runs on both engines;
 * the only difference is how an auto-increment key is spelled.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { Db, Engine } from './database.js';

type AnyDb = Kysely<unknown>;

function initial(engine: Engine): Migration {
  return {
    async up(db: AnyDb) {
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
    async down(db: AnyDb) {
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

/** Live leases per subscription are counted from this index alone when claiming (per-subscription caps). */
const deliveryLeases: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createIndex('deliveries_lease')
      .on('deliveries')
      .columns(['lease_until', 'subscription_id'])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropIndex('deliveries_lease').ifExists().execute();
  },
};

/**
 * Browser sign-in: one-time portal links (stored as hashes only) and the sessions of the partner
 * portal and the operator console (keyed by the hash of the cookie value, so a database leak hands
 * out no live session).
 */
const webSessions: Migration = {
  async up(db: AnyDb) {
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
  async down(db: AnyDb) {
    await db.schema.dropTable('web_sessions').ifExists().execute();
    await db.schema.dropTable('portal_links').ifExists().execute();
  },
};

/**
 * `offers import` finds the offers of an earlier run of the same file by each row's stable key
 * (see README: CLI). A table of its own, so the offers table keeps its shape.
 */
const offerImportKeys: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('offer_import_keys')
      .addColumn('import_key', 'text', (c) => c.primaryKey())
      .addColumn('offer_id', 'integer', (c) => c.notNull().references('offers.id').onDelete('cascade'))
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable('offer_import_keys').ifExists().execute();
  },
};

/**
 * The offers change log feeds the in-process offers read model of every node (src/offers/read-model.ts).
 * Triggers write it in the same transaction as the offer change, so no write path (API, CLI import,
 * hand-written SQL) can change an offer without every node learning of it. On PostgreSQL the trigger
 * also NOTIFYs, so other nodes catch up at commit instead of at their next poll.
 */
function offerChanges(engine: Engine): Migration {
  return {
    async up(db: AnyDb) {
      if (engine === 'postgres') {
        await sql`create table offer_changes (id bigserial primary key, ean text not null, changed_at bigint not null)`.execute(
          db,
        );
        await sql`create function shelfmark_offer_changed() returns trigger language plpgsql as $$
          declare
            at bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
          begin
            if tg_op in ('UPDATE', 'DELETE') then
              insert into offer_changes (ean, changed_at) values (old.ean, at);
            end if;
            if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.ean is distinct from old.ean) then
              insert into offer_changes (ean, changed_at) values (new.ean, at);
            end if;
            perform pg_notify('shelfmark_offers', '');
            return null;
          end $$`.execute(db);
        await sql`create trigger offers_changed after insert or update or delete on offers for each row execute function shelfmark_offer_changed()`.execute(
          db,
        );
      } else {
        await sql`create table offer_changes (id integer primary key autoincrement, ean text not null, changed_at integer not null)`.execute(
          db,
        );
        const now = sql.raw(`cast((julianday('now') - 2440587.5) * 86400000 as integer)`);
        await sql`create trigger offers_changed_insert after insert on offers begin insert into offer_changes (ean, changed_at) values (new.ean, ${now}); end`.execute(
          db,
        );
        await sql`create trigger offers_changed_update after update on offers begin
          insert into offer_changes (ean, changed_at) values (old.ean, ${now});
          insert into offer_changes (ean, changed_at) select new.ean, ${now} where new.ean <> old.ean;
        end`.execute(db);
        await sql`create trigger offers_changed_delete after delete on offers begin insert into offer_changes (ean, changed_at) values (old.ean, ${now}); end`.execute(
          db,
        );
      }
      await db.schema.createIndex('offer_changes_changed_at').on('offer_changes').column('changed_at').execute();
    },
    async down(db: AnyDb) {
      await sql`drop table if exists offer_changes`.execute(db);
      if (engine === 'postgres') await sql`drop function if exists shelfmark_offer_changed() cascade`.execute(db);
      else
        for (const name of ['insert', 'update', 'delete'])
          await sql.raw(`drop trigger if exists offers_changed_${name}`).execute(db);
    },
  };
}
/** Remembered answers for Idempotency-Key (src/idempotency): one row per owner and key, kept 24 h. */
const idempotencyKeys: Migration = {
  async up(db: AnyDb) {
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
  async down(db: AnyDb) {
    await db.schema.dropTable('idempotency_keys').ifExists().execute();
  },
};

const MIGRATIONS_TABLE = 'shelfmark_migrations';

/** Every migration in the order it applies. Never edit one that has shipped: add the next. */
function migrations(engine: Engine): [string, Migration][] {
  return [
    ['0001_initial', initial(engine)],
    ['0002_delivery_leases', deliveryLeases],
    ['0003_offer_changes', offerChanges(engine)],
    ['0004_idempotency_keys', idempotencyKeys],
    ['0005_web_sessions', webSessions],
    ['0006_offer_import_keys', offerImportKeys],
  ];
}

interface MigrationsDb {
  shelfmark_migrations: { name: string; applied_at: number };
}

/**
 * Applies every pending migration in one transaction. A small runner of our own rather than Kysely's
 * Migrator: that one introspects every schema of a PostgreSQL database, which breaks when databases
 * share a server in schemas of their own (tests, multi-tenant hosting). Concurrent starts of several
 * nodes are serialised by an advisory lock (PostgreSQL) or the write lock (SQLite).
 */
export async function migrateToLatest(database: Db): Promise<void> {
  // Migrations describe tables that do not exist yet, so they see the database untyped.
  const db = database.kysely as unknown as Kysely<MigrationsDb>;
  await db.transaction().execute(async (trx) => {
    if (database.engine === 'postgres') {
      await sql`select pg_advisory_xact_lock(hashtext('shelfmark-migrations:' || current_schema()))`.execute(trx);
    }
    await trx.schema
      .createTable(MIGRATIONS_TABLE)
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('applied_at', 'bigint', (c) => c.notNull())
      .execute();
    const applied = new Set((await trx.selectFrom(MIGRATIONS_TABLE).select('name').execute()).map((row) => row.name));
    for (const [name, migration] of migrations(database.engine)) {
      if (applied.has(name)) continue;
      try {
        await migration.up(trx as unknown as AnyDb);
      } catch (error) {
        throw new Error(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      await trx.insertInto(MIGRATIONS_TABLE).values({ name, applied_at: Date.now() }).execute();
    }
  });
}
