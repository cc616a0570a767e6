/**
 * The PostgreSQL backup: `pg_dump --format=custom` of the one schema Shelfmark lives in, run by the CLI
 * when pg_dump is installed (otherwise the error gives the exact command). Running it here rather than
 * only printing advice gives one command for both engines in an operator's schedule, and picks the
 * schema the way the servers do (DATABASE_URL's search_path): a hand-written pg_dump of a database
 * shared by tenants easily dumps every schema or the wrong one. pg_dump reads in one repeatable-read
 * transaction (a consistent snapshot) and takes only ACCESS SHARE locks: writers are never blocked,
 * only DDL (a migration) waits for it.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { BackupError, type Snapshot } from './target.js';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The schema DATABASE_URL puts first on the search_path, and the migrations recorded there. */
export async function describePostgres(url: string): Promise<{ schema: string; migrations: string[] }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new BackupError(`cannot connect to PostgreSQL (DATABASE_URL): ${message(error)}`);
  }
  try {
    const found = await client.query<{ schema: string | null; table: string | null }>(
      "select current_schema() as schema, to_regclass('shelfmark_migrations')::text as table",
    );
    const row = found.rows[0];
    if (row?.schema === null || row?.schema === undefined)
      throw new BackupError("DATABASE_URL's search_path names no existing schema: there is nothing to back up");
    if (row.table === null)
      throw new BackupError(`schema ${row.schema} is not a Shelfmark database (no shelfmark_migrations table)`);
    const names = await client.query<{ name: string }>('select name from shelfmark_migrations');
    // Sorted here, not by the database's collation, to compare with the archive's rows sorted the same way.
    return { schema: row.schema, migrations: names.rows.map((r) => r.name).sort() };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** pg_dump's and pg_restore's way to name one schema exactly (a double-quoted pattern). */
const exactly = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * The URL for libpq without its password, which goes in PGPASSWORD instead: a password on a command
 * line can be read by every local user for as long as pg_dump runs.
 */
function connection(url: string): { dbname: string; password: string | undefined } {
  const parsed = new URL(url);
  const password = parsed.password === '' ? undefined : decodeURIComponent(parsed.password);
  parsed.password = '';
  return { dbname: parsed.toString(), password };
}

/** The pg_dump command for this database, as the operator would type it (no password shown). */
export function pgDumpCommand(url: string, schema: string, file: string): string {
  const quote = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  return ['pg_dump', ...pgDumpArgs(connection(url).dbname, schema, file)].map(quote).join(' ');
}

function pgDumpArgs(dbname: string, schema: string, file: string): string[] {
  // --no-password: a scheduled backup fails at once instead of waiting at a password prompt.
  return ['--format=custom', `--schema=${exactly(schema)}`, '--no-password', `--file=${file}`, `--dbname=${dbname}`];
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a PostgreSQL client program; undefined when it is not installed. */
function run(program: string, args: readonly string[], password?: string): Promise<Ran | undefined> {
  return new Promise((resolve, reject) => {
    // The environment is passed on whole (PATH, PG* settings, certificates), the password added.
    const env = password === undefined ? undefined : { ...process.env, PGPASSWORD: password };
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? resolve(undefined) : reject(new BackupError(`${program}: ${error.message}`)),
    );
    child.once('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

const failed = (program: string, ran: Ran): BackupError =>
  new BackupError(`${program} failed (exit ${ran.code ?? 'by signal'}): ${ran.stderr.trim() || '(no message)'}`);

/** Dumps the schema into `temp` (custom format). */
export async function dumpPostgres(url: string, schema: string, temp: string, shownFile: string): Promise<void> {
  const { dbname, password } = connection(url);
  const ran = await run('pg_dump', pgDumpArgs(dbname, schema, temp), password);
  if (ran === undefined)
    throw new BackupError(
      `pg_dump is not installed (or not on PATH). Install PostgreSQL's client tools, of the server's major version or newer, or run this on a host that has them${password === undefined ? '' : ' (with PGPASSWORD set to the password in DATABASE_URL)'}:\n  ${pgDumpCommand(url, schema, shownFile)}`,
    );
  if (ran.code !== 0) throw failed('pg_dump', ran);
}

/**
 * Checks the archive with pg_restore: its table of contents reads, it holds the migrations table's data,
 * and those rows are the migrations the database recorded.
 */
export async function verifyPostgres(temp: string, schema: string, expected: readonly string[]): Promise<Snapshot> {
  const listed = await run('pg_restore', ['--list', temp]);
  if (listed === undefined) throw new BackupError('pg_restore is not installed: the archive cannot be checked');
  if (listed.code !== 0) throw failed('pg_restore --list', listed);
  if (!listed.stdout.includes(`TABLE DATA ${schema} shelfmark_migrations `))
    throw new BackupError(`the archive holds no data of ${schema}.shelfmark_migrations`);
  const data = await run('pg_restore', [
    '--data-only',
    `--schema=${schema}`,
    '--table=shelfmark_migrations',
    '--file=-',
    temp,
  ]);
  if (data === undefined || data.code !== 0) throw failed('pg_restore --data-only', data ?? listed);
  const migrations = copyRows(data.stdout)
    .map((row) => row.split('\t')[0] ?? '')
    .sort();
  if (migrations.join() !== expected.join())
    throw new BackupError(
      `the archive records ${migrations.length} migrations, the database ${expected.length}: it was migrated during the backup; run the backup again`,
    );
  return {
    migrations,
    check: `pg_restore --list ok (${listed.stdout.split('\n').filter((l) => /^\d+;/.test(l)).length} entries)`,
  };
}

/** The data lines of the one COPY block in pg_restore's SQL output. */
function copyRows(sqlText: string): string[] {
  const lines = sqlText.split('\n');
  const start = lines.findIndex((line) => line.startsWith('COPY '));
  if (start < 0) return [];
  const end = lines.indexOf('\\.', start);
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((line) => line !== '');
}
