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
  '0012_sqlite_due_in_insertion_order',
  '0013_history',
  '0014_audit',
  '0015_operators',
  '0016_event_feed',
  '0017_completion_keeps_subscription_index',
  '0018_manual_attempts',
  '0019_worker_heartbeats',
  '0020_offer_changes_per_statement',
  '0021_offer_changes_recorded_by_writer',
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

  it('order the due rows by due time, then insertion order on SQLite and id on PostgreSQL (0012)', async () => {
    const fresh = await freshDatabase(engine);
    database = fresh;
    const definitions =
      engine === 'postgres'
        ? await sql<{
            name: string;
            definition: string;
          }>`select indexname as name, indexdef as definition from pg_indexes
            where tablename = 'deliveries' and schemaname = current_schema() and indexname like 'deliveries_due_%'
            order by indexname`.execute(fresh.db.kysely)
        : await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
            where type = 'index' and name like 'deliveries_due_%' order by name`.execute(fresh.db.kysely);
    const columns = (definition: string): string => /\(([^)]*)\)/.exec(definition)?.[1] ?? '';
    const expected = engine === 'postgres' ? 'next_attempt_at, id' : 'next_attempt_at';
    expect(definitions.rows.map((row) => [row.name, columns(row.definition)])).toEqual([
      ['deliveries_due_first', expected],
      ['deliveries_due_retry', expected],
    ]);
    if (engine === 'sqlite') {
      // Every SQLite index ends with the rowid: the claim's order comes from the index, unsorted.
      const plan = await sql<{ detail: string }>`explain query plan
        select id from deliveries where status = 'pending' and attempt_count = 0 and next_attempt_at <= 5
        order by next_attempt_at, rowid limit 256`.execute(fresh.db.kysely);
      expect(plan.rows.map((row) => row.detail)).toEqual([
        'SEARCH deliveries USING INDEX deliveries_due_first (next_attempt_at<?)',
      ]);
    }
  });
});
