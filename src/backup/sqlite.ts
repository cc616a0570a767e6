/**
 * An online backup of the SQLite database while servers write to it: SQLite's backup API through
 * better-sqlite3's `db.backup()`, every page in ONE step.
 *
 * Why one step: the backup runs on a connection of its own, so every commit by a server (another
 * connection, usually another process) makes SQLite restart a stepped backup from page 1 at its next
 * step. better-sqlite3 steps 100 pages per turn of the event loop by default; on a large file with a
 * writer committing every few milliseconds, that backup never finished (it kept restarting). One
 * step copies every page inside one read transaction: a consistent snapshot, never restarted. The
 * database is in WAL mode, where a reader never blocks a writer.
 *
 * Why not `VACUUM INTO`: it gives the same snapshot and a compacted file, but rebuilds every table and
 * index to do it: measured with a writer committing every few milliseconds, it ran longer than the one
 * backup step and made the writer's slowest commit several times slower (figures:
 * docs/performance.md#decisions). Either keeps the WAL from being checkpointed past its
 * snapshot while it runs; the shorter run holds it less (docs/operating/backup.md).
 */
import SQLite from 'better-sqlite3';
import { BackupError, type Snapshot } from './target.js';

/** The largest page count one step may take: every remaining page. */
const ALL_PAGES = 0x7fffffff;

/** The migrations a SQLite database records, in order; throws BackupError when it is not a Shelfmark database. */
function migrationsOf(db: SQLite.Database, what: string): string[] {
  const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'shelfmark_migrations'").get();
  if (table === undefined) throw new BackupError(`${what} is not a Shelfmark database (no shelfmark_migrations table)`);
  return db
    .prepare('select name from shelfmark_migrations order by name')
    .pluck()
    .all()
    .map((name) => String(name));
}

function open(file: string, what: string): SQLite.Database {
  try {
    const db = new SQLite(file, { fileMustExist: true, timeout: 5000 });
    // Reading the schema is the first thing that notices a file that is not a database.
    db.pragma('schema_version');
    return db;
  } catch (error) {
    throw new BackupError(`cannot open ${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Copies the database at `source` into the (empty) file `temp`; returns what the source recorded. */
export async function copySqlite(source: string, temp: string): Promise<{ migrations: string[] }> {
  const db = open(source, `the database ${source}`);
  try {
    migrationsOf(db, `the database ${source}`);
    // The first step (0 pages) only measures the source; the handler then asks for every page at once.
    await db.backup(temp, { progress: () => ALL_PAGES });
    // Read after the copy: a migration between the two reads shows as a mismatch in verifySqlite.
    return { migrations: migrationsOf(db, `the database ${source}`) };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the copy failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    db.close();
  }
}

/**
 * Checks the copy: SQLite's full integrity check (every page, every index against its table; it reads
 * the copy, not the live database) and the migrations it records against the source's. The copy is also
 * switched out of WAL mode, so the backup is one self-contained file that can be opened read-only.
 */
export function verifySqlite(temp: string, expected: readonly string[]): Snapshot {
  const db = open(temp, 'the copy');
  try {
    db.pragma('journal_mode = DELETE');
    const problems = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
    const lines = problems.map((row) => row.integrity_check);
    if (lines.length !== 1 || lines[0] !== 'ok')
      throw new BackupError(`the copy failed its integrity check: ${lines.slice(0, 5).join('; ')}`);
    const migrations = migrationsOf(db, 'the copy');
    if (migrations.join() !== expected.join())
      throw new BackupError(
        `the copy records ${migrations.length} migrations, the database ${expected.length}: it was migrated during the backup; run the backup again`,
      );
    return { migrations, check: 'integrity_check ok' };
  } finally {
    db.close();
  }
}
