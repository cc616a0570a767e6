/**
 * `shelfmark backup <file>`: a consistent copy of the database the configuration names, taken while the
 * service runs, written under a temporary name, verified, then published under its own. SQLite is
 * copied with its online backup API (sqlite.ts), PostgreSQL dumped with pg_dump (postgres.ts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Clock, isoTime } from '../clock.js';
import { describePostgres, dumpPostgres, verifyPostgres } from './postgres.js';
import { copySqlite, verifySqlite } from './sqlite.js';
import { BackupError, discardTarget, prepareTarget, publishTarget, type Snapshot, type Target } from './target.js';

export { BackupError } from './target.js';

export interface BackupResult {
  engine: 'sqlite' | 'postgres';
  /** The backup file, absolute. */
  file: string;
  /** SQLite: the database file copied; PostgreSQL: the schema dumped. */
  source: string;
  format: 'sqlite' | 'pg_dump custom';
  bytes: number;
  /** When the copy began: the backup holds every write committed before this moment. */
  startedAt: string;
  seconds: number;
  copySeconds: number;
  verifySeconds: number;
  check: string;
  migrations: number;
  latestMigration: string | null;
}

/** A configuration that cannot be backed up (an in-memory database): the CLI exits with 2. */
export class NothingToBackUp extends Error {}

const seconds = (ms: number): number => Math.round(ms) / 1000;

export async function backupDatabase(
  databaseUrl: string,
  file: string,
  options: { force: boolean; clock: Clock },
): Promise<BackupResult> {
  const { clock } = options;
  const engine = databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
  const sqliteFile = engine === 'sqlite' ? databaseUrl.slice('sqlite:'.length) : '';
  if (engine === 'sqlite') {
    if (sqliteFile === '' || sqliteFile === ':memory:')
      throw new NothingToBackUp('DATABASE_URL names an in-memory SQLite database: there is no file to back up');
    if (!existsSync(sqliteFile))
      throw new BackupError(`no database at ${resolve(sqliteFile)}: check DATABASE_URL (sqlite:<path>)`);
  }
  // PostgreSQL is asked first which schema it is, so a wrong URL fails before any file is created.
  const described = engine === 'postgres' ? await describePostgres(databaseUrl) : undefined;
  const target = prepareTarget(file, options.force);
  try {
    const started = clock.now();
    let snapshot: Snapshot;
    let copied: number;
    if (described === undefined) {
      const { migrations } = await copySqlite(sqliteFile, target.temp);
      copied = clock.now();
      snapshot = verifySqlite(target.temp, migrations);
    } else {
      await dumpPostgres(databaseUrl, described.schema, target.temp, target.file);
      copied = clock.now();
      snapshot = await verifyPostgres(target.temp, described.schema, described.migrations);
    }
    const verified = clock.now();
    const bytes = publishTarget(target);
    return result(target, {
      engine,
      source: described === undefined ? resolve(sqliteFile) : `schema ${described.schema}`,
      bytes,
      started,
      copied,
      verified,
      snapshot,
    });
  } catch (error) {
    discardTarget(target);
    throw error;
  }
}

function result(
  target: Target,
  run: {
    engine: 'sqlite' | 'postgres';
    source: string;
    bytes: number;
    started: number;
    copied: number;
    verified: number;
    snapshot: Snapshot;
  },
): BackupResult {
  const { migrations, check } = run.snapshot;
  return {
    engine: run.engine,
    file: target.file,
    source: run.source,
    format: run.engine === 'sqlite' ? 'sqlite' : 'pg_dump custom',
    bytes: run.bytes,
    startedAt: isoTime(run.started),
    seconds: seconds(run.verified - run.started),
    copySeconds: seconds(run.copied - run.started),
    verifySeconds: seconds(run.verified - run.copied),
    check,
    migrations: migrations.length,
    latestMigration: migrations.at(-1) ?? null,
  };
}

/** Bytes for people: 123 B, 4.5 kB, 110.3 MB. */
export function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = '';
  for (const next of units) {
    value /= 1000;
    unit = next;
    if (value < 1000) break;
  }
  return `${value.toFixed(1)} ${unit}`;
}
