/**
 * Migration names are recorded in every existing database: renaming or reordering one would make an
 * existing database run it again. The list and its order are therefore fixed here.
 */
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';

const NAMES = [
  '0001_initial',
  '0002_delivery_leases',
  '0003_offer_changes',
  '0004_idempotency_keys',
  '0005_web_sessions',
  '0006_offer_import_keys',
  '0007_offer_identifiers',
  '0008_subscription_notices',
  '0009_delivery_partial_indexes',
  '0010_school_changes',
  '0011_delivery_leases_unindexed',
];

describeEachEngine('migrations', (engine) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('are listed by their recorded names, in order', () => {
    expect(migrations(engine).map(([name]) => name)).toEqual(NAMES);
  });

  it('record exactly those names, and a second run applies nothing', async () => {
    const fresh = await freshDatabase(engine);
    database = fresh;
    const recorded = async (): Promise<string[]> =>
      (
        await sql<{ name: string }>`select name from shelfmark_migrations order by name`.execute(fresh.db.kysely)
      ).rows.map((row) => row.name);
    expect(await recorded()).toEqual(NAMES);
    await migrateToLatest(fresh.db);
    expect(await recorded()).toEqual(NAMES);
  });

  it('leave no index over a column a claim sets, so a claim is a HOT update on PostgreSQL (0011)', async () => {
    const fresh = await freshDatabase(engine);
    database = fresh;
    const definitions =
      engine === 'postgres'
        ? await sql<{ definition: string }>`select indexdef as definition from pg_indexes
            where tablename = 'deliveries' and schemaname = current_schema()`.execute(fresh.db.kysely)
        : await sql<{ definition: string }>`select sql as definition from sqlite_master
            where type = 'index' and tbl_name = 'deliveries' and sql is not null`.execute(fresh.db.kysely);
    const texts = definitions.rows.map((row) => row.definition);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const column of ['lease_owner', 'lease_until', 'updated_at'])
      expect(texts.filter((text) => text.includes(column))).toEqual([]);
    if (engine === 'postgres') {
      const options = await sql<{ options: string[] | null }>`select reloptions as options from pg_class
        where oid = 'deliveries'::regclass`.execute(fresh.db.kysely);
      expect(options.rows[0]?.options).toEqual(['fillfactor=80']);
    }
  });
});
