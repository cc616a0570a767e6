/**
 * Every store test runs on SQLite and on a real PostgreSQL. Without a reachable PostgreSQL the
 * PostgreSQL half is skipped with a visible message; with CI=true it is required and fails instead.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe } from 'vitest';
import { connectDatabase, type Db, type Engine } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const required = process.env.CI === 'true' || process.env.REQUIRE_POSTGRES === 'true';

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = await probe();
if (unreachable !== undefined && !required) {
  console.warn(
    `\n[shelfmark tests] PostgreSQL at ${TEST_DATABASE_URL} is not reachable (${unreachable}): PostgreSQL tests are SKIPPED. Set CI=true to require them.\n`,
  );
}

export const postgresAvailable = unreachable === undefined;

export interface TestDatabase {
  db: Db;
  url: string;
  drop(): Promise<void>;
}

/** `url` naming another database of the same server. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** The server's maintenance connections (creating and dropping test databases), one small pool per process. */
let adminPool: pg.Pool | undefined;
const admin = (): pg.Pool => {
  adminPool ??= new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2, allowExitOnIdle: true });
  return adminPool;
};

/** The migrations as they are now: a template database is made once per set of them. */
function migrationsHash(): string {
  const dir = join(import.meta.dirname, '../../src/db/migrations');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(join(dir, file)));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A database migrated to the latest schema, which every PostgreSQL test database is copied from
 * (CREATE DATABASE … TEMPLATE copies it in milliseconds; migrating a fresh one takes hundreds). Made
 * once per set of migrations, by whichever test process gets there first, under an advisory lock;
 * templates of other sets are dropped then.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `shelfmark_template_${migrationsHash()}`;
    const client = await admin().connect();
    try {
      await client.query('select pg_advisory_lock(hashtext($1))', ['shelfmark test template']);
      const { rows } = await client.query<{ datname: string }>(
        "select datname from pg_database where starts_with(datname, 'shelfmark_template_')",
      );
      if (!rows.some((row) => row.datname === name)) {
        for (const row of rows) await client.query(`drop database if exists "${row.datname}" with (force)`);
        const building = `${name}_building`;
        await client.query(`drop database if exists "${building}" with (force)`);
        await client.query(`create database "${building}"`);
        const db = await connectDatabase(withDatabase(TEST_DATABASE_URL, building));
        await migrateToLatest(db);
        await db.close();
        await client.query(`alter database "${building}" rename to "${name}"`);
      }
      return name;
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', ['shelfmark test template']);
      client.release();
    }
  })();
  return template;
}

/**
 * A migrated, empty database of its own: a fresh SQLite file (or memory), or on PostgreSQL a database
 * of its own, copied from the migrated template (advisory locks and notifications are per database,
 * so tests running side by side never meet).
 */
export async function freshDatabase(engine: Engine, options: { file?: boolean } = {}): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const url =
      options.file === true
        ? `sqlite:${process.env.TMPDIR ?? '/tmp'}/shelfmark-test-${randomBytes(6).toString('hex')}.sqlite`
        : 'sqlite::memory:';
    const db = await connectDatabase(url);
    await migrateToLatest(db);
    return { db, url, drop: () => db.close() };
  }
  if (unreachable !== undefined)
    throw new Error(`PostgreSQL is required (CI=true) but not reachable at ${TEST_DATABASE_URL}: ${unreachable}`);
  const name = `shelfmark_test_${randomBytes(6).toString('hex')}`;
  await admin().query(`create database "${name}" template "${await migratedTemplate()}"`);
  const url = withDatabase(TEST_DATABASE_URL, name);
  const db = await connectDatabase(url);
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      await admin().query(`drop database if exists "${name}" with (force)`);
    },
  };
}

export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** describe() once per engine; the PostgreSQL block is skipped (with the message above) when unreachable and not required. */
export function describeEachEngine(name: string, body: (engine: Engine) => void): void {
  for (const engine of ENGINES) {
    const skip = engine === 'postgres' && unreachable !== undefined && !required;
    describe.skipIf(skip)(`${name} [${engine}]`, () => body(engine));
  }
}
