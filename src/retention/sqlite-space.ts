/**
 * SQLite's freed space. Deleted rows leave free pages inside the file; with `auto_vacuum=incremental`
 * (set on every database file created since it was added, src/db/sqlite.ts) a prune hands them back
 * to the file system afterwards with `PRAGMA incremental_vacuum`, a few MB per step with the prune's
 * pause between steps. A file created before has `auto_vacuum=none`: its free pages are reused by new
 * rows (the file stops growing until they are used up) until `npx shelfmark prune --vacuum` rewrites it
 * once with VACUUM, which switches the mode. docs/operating/retention.md gives the figures.
 *
 * The steps run on a connection of their own: through Kysely, better-sqlite3 runs a pragma that
 * returns no rows with a single step, and a single step of incremental_vacuum frees one page.
 */
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { type Pages, sqlitePages } from '../db/dialect/sqlite.js';

/**
 * Pages returned per step: 1,000 pages (4 MiB at the default page size), a step short enough that the
 * write lock it holds stays brief (docs/performance.md#decisions).
 */
export const VACUUM_STEP_PAGES = 1000;

const MODES = ['none', 'full', 'incremental'] as const;
export type AutoVacuum = (typeof MODES)[number];

export interface SpaceReport {
  autoVacuum: AutoVacuum;
  /** The database's size (page_count × page_size) before and after giving back free pages. */
  bytesBefore: number;
  bytesAfter: number;
  /** Free pages left inside the file, reused by new rows. */
  freeBytes: number;
}

export class SqliteSpace {
  constructor(private readonly db: Db) {}

  async mode(): Promise<AutoVacuum> {
    const { rows } = await sql<{ mode: number }>`select auto_vacuum as mode from pragma_auto_vacuum()`.execute(
      this.db.kysely,
    );
    return MODES[Number(rows[0]?.mode ?? 0)] ?? 'none';
  }

  private pages(): Promise<Pages> {
    return sqlitePages(this.db.kysely);
  }

  private report(mode: AutoVacuum, before: Pages, after: Pages): SpaceReport {
    return {
      autoVacuum: mode,
      bytesBefore: before.pages * before.size,
      bytesAfter: after.pages * after.size,
      freeBytes: after.free * after.size,
    };
  }

  /** After a prune: gives the free pages back in steps (incremental mode, a file), else reports them. */
  async release(pause: (heldMs: number) => Promise<void>, stopped: () => boolean): Promise<SpaceReport> {
    const mode = await this.mode();
    const before = await this.pages();
    const file = this.db.sqliteFile;
    if (mode !== 'incremental' || file === undefined || before.free === 0) return this.report(mode, before, before);
    const own = new SQLite(file, { timeout: 5000 });
    try {
      while (!stopped() && (await this.pages()).free > 0) {
        const started = performance.now();
        own.pragma(`incremental_vacuum(${VACUUM_STEP_PAGES})`);
        await pause(performance.now() - started);
      }
      // A passive checkpoint copies the steps into the file and truncates it; it never waits for anyone.
      own.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      own.close();
    }
    return this.report(mode, before, await this.pages());
  }

  /**
   * Rewrites the database with auto_vacuum=incremental (VACUUM): once per file created before the mode
   * was set. It holds the write lock while it copies the whole database and needs as much free disk.
   */
  async vacuum(): Promise<SpaceReport> {
    const before = await this.pages();
    const file = this.db.sqliteFile;
    if (file === undefined) {
      await sql`pragma auto_vacuum = incremental`.execute(this.db.kysely);
      await sql`vacuum`.execute(this.db.kysely);
    } else {
      const own = new SQLite(file, { timeout: 60_000 });
      try {
        own.pragma('auto_vacuum = incremental');
        own.exec('vacuum');
        own.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        own.close();
      }
    }
    return this.report(await this.mode(), before, await this.pages());
  }
}
