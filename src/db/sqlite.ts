/**
 * Opening SQLite (better-sqlite3) for Kysely: WAL, the page cache, prepared statements kept by their
 * text, and transactions that take the write lock at BEGIN.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * SQLite's own default page cache. better-sqlite3 builds SQLite with 16 MiB instead, and under a
 * long load that cache filling up is most of the process's native growth; 2 MiB costs the delivery
 * and offers rates nothing measurable (docs/performance.md#decisions).
 */
const DEFAULT_SQLITE_CACHE_MIB = 2;

/** Opens a SQLite database (a file, or memory for `:memory:` or an empty path) with the project's settings. */
export function openSqlite(
  path: string,
  cacheMib = DEFAULT_SQLITE_CACHE_MIB,
): { kysely: Kysely<Database>; file: string | undefined } {
  if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path === '' ? ':memory:' : path);
  // A new file returns the pages a prune frees (retention/sqlite-space.ts); set before WAL, which
  // writes the header. On an existing file it changes nothing until a VACUUM (`shelfmark prune --vacuum`).
  database.pragma('auto_vacuum = incremental');
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // Several processes (API + worker) may share the file: wait for the write lock instead of failing.
  database.pragma('busy_timeout = 5000');
  // A negative cache_size is in KiB.
  database.pragma(`cache_size = ${-Math.round(cacheMib * 1024)}`);
  const kysely = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }),
  });
  return { kysely, file: database.memory ? undefined : database.name };
}

/**
 * SQLite transactions take the write lock at BEGIN (`begin immediate`) rather than at their first
 * write. A deferred transaction that reads and then writes cannot wait for the lock: SQLite answers
 * SQLITE_BUSY at once when another connection holds it (waiting could deadlock): a CI run's offer
 * update in one `CLUSTER_WORKERS` process got a 503 that way while another process was writing.
 * Taken at BEGIN, the lock is waited for (busy_timeout), as every other wait for it is
 * (test/db/sqlite-transactions.test.ts).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

const STATEMENT_CACHE_LIMIT = 500;

/**
 * Kysely prepares every query anew; preparing costs as much as running a small query. Hot queries
 * repeat their SQL text exactly (values are parameters), so prepared statements are kept by text.
 * SQLite re-prepares a cached statement by itself if the schema changes under it.
 */
function withStatementCache(database: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare: (text) => {
      let statement = cache.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        if (cache.size >= STATEMENT_CACHE_LIMIT) cache.delete(cache.keys().next().value ?? '');
        cache.set(text, statement);
      }
      return statement;
    },
  };
}
