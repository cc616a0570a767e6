/**
 * The migration runner: applies the pending migrations of src/db/migrations/ (one file each) in order.
 * Kept in code so the compiled build carries them; one list runs on both engines.
 */
import type { Kysely } from 'kysely';
import type { Db } from './database.js';
import { migrations } from './migrations/index.js';
import type { UntypedDb } from './migrations/untyped.js';

const MIGRATIONS_TABLE = 'shelfmark_migrations';

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
    await database.dialect.lockMigrations(trx as unknown as Db['kysely']);
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
        await migration.up(trx as unknown as UntypedDb);
      } catch (error) {
        throw new Error(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      await trx.insertInto(MIGRATIONS_TABLE).values({ name, applied_at: Date.now() }).execute();
    }
  });
}
