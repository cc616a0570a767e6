/**
 * Every store test runs on SQLite and on a real PostgreSQL. Without a reachable PostgreSQL the
 * PostgreSQL half is skipped with a visible message; with CI=true it is required and fails instead.
 */
import { randomBytes } from 'node:crypto';
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

/** A migrated, empty database of its own: a fresh SQLite file or a fresh PostgreSQL schema. */
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
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const db = await connectDatabase(TEST_DATABASE_URL, { schema });
  await migrateToLatest(db);
  const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
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
