/**
 * SQLite transactions take the write lock at BEGIN, so one that reads and then writes waits while
 * another connection (another process, or a thread) holds the lock, instead of failing at once with
 * SQLITE_BUSY as a deferred transaction does.
 */
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectDatabase, type Db } from '../../src/db/database.js';

const HOLD_MS = 300;

/** Another connection, on a thread, takes the write lock, holds it HOLD_MS, then commits one row. */
async function holdWriteLock(file: string): Promise<{ released: Promise<unknown> }> {
  const thread = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const SQLite = require(workerData.driver);
     const db = new SQLite(workerData.file);
     db.exec('begin immediate');
     db.prepare("insert into notes (text) values ('from the other connection')").run();
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
     db.exec('commit');
     db.close();`,
    {
      eval: true,
      workerData: { file, holdMs: HOLD_MS, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    },
  );
  await once(thread, 'message');
  return { released: once(thread, 'exit') };
}

describe('SQLite transactions', () => {
  const file = join(tmpdir(), `shelfmark-tx-${process.pid}-${Date.now()}.sqlite`);
  let db: Db;

  beforeEach(async () => {
    db = await connectDatabase(`sqlite:${file}`);
    await sql`create table notes (id integer primary key, text text not null)`.execute(db.kysely);
  });
  afterEach(async () => {
    await db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('a transaction that reads, then writes, waits for another connection’s write lock and commits', async () => {
    const { released } = await holdWriteLock(file);
    const started = performance.now();
    const counted = await db.kysely.transaction().execute(async (trx) => {
      const before = await trx.selectFrom(sql`notes`.as('n')).select(sql<number>`count(*)`.as('n')).executeTakeFirst();
      await sql`insert into notes (text) values ('from the service')`.execute(trx);
      return Number(before?.n);
    });
    await released;
    // It waited for the lock at BEGIN, so it saw the other connection's committed row.
    expect(counted).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(HOLD_MS - 50);
    const rows = await sql<{ text: string }>`select text from notes order by id`.execute(db.kysely);
    expect(rows.rows.map((row) => row.text)).toEqual(['from the other connection', 'from the service']);
  });

  it('for contrast, a deferred transaction (plain BEGIN) that read first fails at once with SQLITE_BUSY', async () => {
    const raw = new SQLite(file);
    raw.pragma('busy_timeout = 5000');
    try {
      raw.exec('begin');
      raw.prepare('select count(*) from notes').get();
      const { released } = await holdWriteLock(file);
      const started = performance.now();
      expect(() => raw.prepare("insert into notes (text) values ('too late')").run()).toThrow(
        expect.objectContaining({ code: expect.stringMatching(/^SQLITE_BUSY/) }),
      );
      expect(performance.now() - started).toBeLessThan(HOLD_MS);
      raw.exec('rollback');
      await released;
    } finally {
      raw.close();
    }
  });
});
