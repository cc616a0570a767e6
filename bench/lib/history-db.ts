/**
 * The bench's own connection to a service's database (a SQLite file or a PostgreSQL schema), beside
 * the service or while it is stopped: plain SQL for seeding history, counting rows and sizing the
 * database. Nothing here goes through the service's code.
 */
import { existsSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database, Engine } from './shelfmark.js';

export type { Engine } from './shelfmark.js';

export interface SqlRunner {
  engine: Engine;
  /** Runs one statement (no parameters). */
  run(text: string): Promise<void>;
  rows<T>(text: string): Promise<T[]>;
  close(): Promise<void>;
}

/** The file behind a `sqlite:` URL. */
export function sqliteFile(url: string): string {
  if (!url.startsWith('sqlite:')) throw new Error(`not a SQLite URL: ${url}`);
  return url.slice('sqlite:'.length);
}

/** The schema a bench PostgreSQL URL selects (`?options=-c search_path=<schema>`). */
export function postgresSchema(url: string): string {
  const options = new URL(url).searchParams.get('options') ?? '';
  const schema = /search_path=([a-z_][a-z0-9_]*)/.exec(options)?.[1];
  if (schema === undefined) throw new Error(`no search_path in ${url}`);
  return schema;
}

export async function openRunner(db: Database): Promise<SqlRunner> {
  if (db.engine === 'sqlite') {
    const file = new SQLite(sqliteFile(db.url));
    file.pragma('journal_mode = WAL');
    file.pragma('busy_timeout = 10000');
    return {
      engine: 'sqlite',
      run: async (text) => void file.exec(text),
      rows: async <T>(text: string) => file.prepare(text).all() as T[],
      close: async () => void file.close(),
    };
  }
  const client = new pg.Client({ connectionString: db.url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  return {
    engine: 'postgres',
    run: async (text) => void (await client.query(text)),
    rows: async <T>(text: string) => (await client.query(text)).rows as T[],
    close: () => client.end(),
  };
}

export async function withRunner<T>(db: Database, work: (runner: SqlRunner) => Promise<T>): Promise<T> {
  const runner = await openRunner(db);
  try {
    return await work(runner);
  } finally {
    await runner.close();
  }
}

/** Whether a table exists (so a step written for a later migration is skipped on an older build). */
export async function hasTable(runner: SqlRunner, table: string): Promise<boolean> {
  const rows = await runner.rows<{ n: number | string }>(
    runner.engine === 'sqlite'
      ? `select count(*) as n from sqlite_master where type = 'table' and name = '${table}'`
      : `select count(*) as n from information_schema.tables where table_schema = current_schema() and table_name = '${table}'`,
  );
  return Number(rows[0]?.n ?? 0) > 0;
}

export async function hasColumn(runner: SqlRunner, table: string, column: string): Promise<boolean> {
  const rows = await runner.rows<{ n: number | string }>(
    runner.engine === 'sqlite'
      ? `select count(*) as n from pragma_table_info('${table}') where name = '${column}'`
      : `select count(*) as n from information_schema.columns where table_schema = current_schema() and table_name = '${table}' and column_name = '${column}'`,
  );
  return Number(rows[0]?.n ?? 0) > 0;
}

export async function count(runner: SqlRunner, from: string): Promise<number> {
  const rows = await runner.rows<{ n: number | string }>(`select count(*) as n from ${from}`);
  return Number(rows[0]?.n ?? 0);
}

/** The tables the history lives in, counted before and after a prune. */
export const HISTORY_TABLES = ['events', 'deliveries', 'delivery_attempts', 'delivery_stats'] as const;

export async function rowCounts(runner: SqlRunner): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of HISTORY_TABLES) if (await hasTable(runner, table)) counts[table] = await count(runner, table);
  return counts;
}

/**
 * The database's size in bytes: the SQLite file and its WAL, or every table of the PostgreSQL schema
 * with its indexes and TOAST.
 */
export async function databaseBytes(db: Database): Promise<number> {
  if (db.engine === 'sqlite') {
    const file = sqliteFile(db.url);
    const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);
    return size(file) + size(`${file}-wal`);
  }
  return withRunner(db, async (runner) => {
    const rows = await runner.rows<{ bytes: number | string | null }>(
      `select sum(pg_total_relation_size(c.oid)) as bytes from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = '${postgresSchema(db.url)}' and c.relkind in ('r', 'm')`,
    );
    return Number(rows[0]?.bytes ?? 0);
  });
}

export const mb = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
