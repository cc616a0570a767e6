/**
 * SQLite's freed space after a prune, on a file with six months of history (30,000 deliveries, 2 %
 * failed with 5 attempts, spread evenly over 180 days): with auto_vacuum=incremental (every file
 * created now) the file shrinks to about a fifth; with auto_vacuum=none (files created before) it
 * keeps its size and new rows fill the free pages first; `prune --vacuum` switches such a file.
 */
import { rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { connectDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { RetentionService } from '../../src/retention/service.js';
import { StorageStore } from '../../src/retention/storage-store.js';
import { DAY, History, rowCount } from './support.js';

const NOW = Date.UTC(2026, 8, 1, 12, 0, 0);
const EVENTS = 3000;
const SPAN = 180 * DAY;

/** `events` events (from `first`) with 10 deliveries each, evenly over the 180 days before NOW. */
async function seed(db: Db, first: number, events: number, at: (n: number) => number): Promise<void> {
  const k = db.kysely;
  const numbers = (from: number, to: number) =>
    sql`(with recursive c(n) as (select ${from} union all select n + 1 from c where n < ${to}) select n from c)`;
  await k.transaction().execute(async (trx) => {
    for (let n = first; n < first + events; n++) {
      await sql`insert into events (id, name, resource, identifier, payload, created_at) values (
        ${`evt_${String(n).padStart(9, '0')}`}, 'list.updated', 'list', lower(hex(randomblob(16))),
        '{"type":"list.updated","resource":"list","identifier":"' || lower(hex(randomblob(16))) || '","changed":["items","name"]}',
        ${at(n)})`.execute(trx);
    }
    await sql`insert into deliveries (id, event_id, subscription_id, status, attempt_count, next_attempt_at,
        last_status_code, created_at, updated_at, completed_at)
      select e.id || '_' || s.n, e.id, 'sub_retention',
        case when (e.rowid * 10 + s.n) % 50 = 0 then 'failed' else 'succeeded' end,
        case when (e.rowid * 10 + s.n) % 50 = 0 then 5 else 1 end,
        e.created_at, 200, e.created_at, e.created_at + 1000, e.created_at + 1000
      from events e, ${numbers(0, 9)} s
      where e.id >= ${`evt_${String(first).padStart(9, '0')}`}`.execute(trx);
    await sql`insert into delivery_attempts (id, delivery_id, attempt_no, started_at, duration_ms, status_code, response_body)
      select 'att_' || d.id || '_' || a.n, d.id, a.n, d.created_at + a.n, 35, 200, '{"received":true}'
      from deliveries d, ${numbers(1, 5)} a
      where a.n <= d.attempt_count and d.event_id >= ${`evt_${String(first).padStart(9, '0')}`}`.execute(trx);
  });
}

describe('retention: SQLite space after a prune', () => {
  const files: string[] = [];
  const open = async (autoVacuum: 'none' | 'incremental'): Promise<{ db: Db; file: string }> => {
    const file = join(tmpdir(), `shelfmark-space-${autoVacuum}-${process.pid}-${files.length}.sqlite`);
    files.push(file);
    if (autoVacuum === 'none') {
      // A file as every release before this one created it.
      const raw = new SQLite(file);
      raw.pragma('auto_vacuum = none');
      raw.pragma('journal_mode = WAL');
      raw.close();
    }
    const db = await connectDatabase(`sqlite:${file}`);
    await migrateToLatest(db);
    await new History(db, NOW).setUp();
    await seed(db, 0, EVENTS, (n) => NOW - SPAN + Math.floor((n * SPAN) / EVENTS));
    await sql`pragma wal_checkpoint(truncate)`.execute(db.kysely);
    return { db, file };
  };
  const retention = (db: Db) =>
    new RetentionService({
      db,
      config: testConfig({ prunePauseMs: 0 }),
      clock: { now: () => NOW },
      pause: async () => undefined,
    });
  let dbs: Db[] = [];
  afterEach(async () => {
    for (const db of dbs) await db.close();
    dbs = [];
    for (const file of files.splice(0))
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('auto_vacuum=incremental: the file shrinks to at most 0.35 of its size once about five-sixths of the rows are gone', async () => {
    const { db, file } = await open('incremental');
    dbs.push(db);
    const before = statSync(file).size;
    expect(await rowCount(db, 'deliveries')).toBe(30_000);
    const outcome = await retention(db).prune();
    if (outcome.status !== 'pruned') throw new Error('busy');
    // Succeeded deliveries older than 30 days go (5/6 of them), failed ones older than 90 (1/2).
    expect(outcome.record.rows.deliveries).toBeGreaterThan(24_500);
    expect(await rowCount(db, 'deliveries')).toBeLessThan(5_500);
    expect(outcome.space).toMatchObject({ autoVacuum: 'incremental', bytesBefore: before, freeBytes: 0 });
    const after = statSync(file).size;
    expect(outcome.space?.bytesAfter).toBe(after);
    expect(after / before).toBeLessThanOrEqual(0.35);
  });

  it('auto_vacuum=none: the file keeps its size, new rows reuse the free pages, and --vacuum switches the file', async () => {
    const { db, file } = await open('none');
    dbs.push(db);
    const before = statSync(file).size;
    const service = retention(db);
    const outcome = await service.prune();
    if (outcome.status !== 'pruned') throw new Error('busy');
    expect(outcome.space?.autoVacuum).toBe('none');
    expect(outcome.space?.bytesAfter).toBe(before);
    const free = outcome.space?.freeBytes ?? 0;
    expect(free / before).toBeGreaterThan(0.6);

    // A month of new history (half as many rows as were pruned) fits in the free pages.
    await seed(db, EVENTS, EVENTS / 2, () => NOW);
    await sql`pragma wal_checkpoint(truncate)`.execute(db.kysely);
    expect(statSync(file).size).toBe(before);
    const { freeBytes } = await new StorageStore(db.dialect).size(db.kysely);
    expect(freeBytes).toBeLessThan(free);

    const vacuumed = await service.vacuum();
    expect(vacuumed?.autoVacuum).toBe('incremental');
    expect(await service.autoVacuum()).toBe('incremental');
    expect(statSync(file).size).toBeLessThan(before * 0.8);
  });
});
