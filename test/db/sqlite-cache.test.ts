/**
 * SQLite's page cache is set per connection from SQLITE_CACHE_MIB: 2 MiB by default (SQLite's own
 * default; better-sqlite3's build would give 16 MiB), so the process's resident memory stays flat.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDatabase, type Db } from '../../src/db/database.js';

const opened: Db[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function cacheSize(options: Parameters<typeof connectDatabase>[1]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'shelfmark-cache-'));
  dirs.push(dir);
  const db = await connectDatabase(`sqlite:${join(dir, 'cache.sqlite')}`, options);
  opened.push(db);
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db.kysely);
  return Number(rows[0]?.cache_size);
}

describe('SQLite page cache', () => {
  it('is 2 MiB unless configured (a negative cache_size counts KiB)', async () => {
    expect(await cacheSize({})).toBe(-2048);
  });

  it('follows SQLITE_CACHE_MIB', async () => {
    expect(await cacheSize({ sqliteCacheMib: 16 })).toBe(-16384);
  });
});
