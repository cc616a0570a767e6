/**
 * One query layer (Kysely) over two engines: better-sqlite3 for the embedded default and pg for
 * scale-out. The engine is chosen here, once, from the URL; where the two differ (spellings, locks,
 * notifications, sizes) the code above asks the handle's dialect (dialect.ts).
 */
import { randomUUID } from 'node:crypto';
import { type Compilable, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { postgresDialect } from './dialect/postgres.js';
import { sqliteDialect } from './dialect/sqlite.js';
import type { Dialect, Engine } from './dialect.js';
import type { Database } from './schema.js';
import { openSqlite } from './sqlite.js';

export type { Dialect, Engine };

/** Each engine's dialect, by name (a handle carries its own: `db.dialect`). */
export const DIALECTS: Readonly<Record<Engine, Dialect>> = { sqlite: sqliteDialect, postgres: postgresDialect };

export interface Db {
  readonly kysely: Kysely<Database>;
  /** Which engine runs, for reports; what differs between the engines is asked of `dialect`. */
  readonly engine: Engine;
  readonly dialect: Dialect;
  /**
   * SQLite only: the database file, for another connection to the same database (the delivery
   * queue's thread); undefined for an in-memory database, which no other connection can open.
   */
  readonly sqliteFile?: string;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  /**
   * PostgreSQL only: calls `onNotify` for every NOTIFY on `channel`, over a dedicated connection, until
   * the returned function is called. Undefined on SQLite, where every writer shares one host.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * PostgreSQL only: this handle's name as the payload of the notifications its outbox sends. Its own
   * listeners ignore those (the outbox wakes this process's workers and feed itself after the commit),
   * so a commit wakes each of them once, not twice.
   */
  readonly origin?: string;
  /**
   * PostgreSQL only: connections whose commits do not wait for the WAL flush (synchronous_commit off),
   * for writes that may be lost in a PostgreSQL crash without harm (the delivery worker's leases and
   * completions). Opened on first use; undefined on SQLite.
   */
  relaxed?(): Kysely<Database>;
  /**
   * PostgreSQL only: runs a named prepared statement on those relaxed connections. Each connection
   * parses and plans `text` once under `name`, then only binds and executes it, so the delivery
   * worker's hot statements (claim, completions) skip parsing and planning on every call.
   */
  prepared?<Row>(name: string, text: string, values: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** A Kysely handle that may be the root connection or an open transaction. */
export type Executor = Kysely<Database>;

// int8 (bigint) columns hold epoch milliseconds, far below 2^53: parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * A query built and compiled once, run with fresh parameters: hot paths skip Kysely's per-call
 * building and compiling (about as costly as running the query itself on SQLite). `build` receives
 * placeholder values; the parameters passed at run time must follow the compiled order.
 */
export function compiledQuery<Row, Params extends readonly unknown[]>(
  db: Executor,
  build: (db: Executor) => Compilable<Row>,
): (...parameters: Params) => Promise<Row[]> {
  const compiled = build(db).compile();
  return async (...parameters) => (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
}

export interface DatabaseOptions {
  /** PostgreSQL only: run every query in this schema (created if missing); tests use one per run. */
  schema?: string;
  poolSize?: number;
  /** SQLite only: the page cache in MiB (SQLITE_CACHE_MIB; 2 by default). */
  sqliteCacheMib?: number;
}

export async function connectDatabase(url: string, options: DatabaseOptions = {}): Promise<Db> {
  if (url.startsWith('sqlite:')) {
    const { kysely, file } = openSqlite(url.slice('sqlite:'.length), options.sqliteCacheMib);
    return file === undefined ? handle(kysely, sqliteDialect) : { ...handle(kysely, sqliteDialect), sqliteFile: file };
  }
  return connectPostgres(url, options);
}

function handle(kysely: Kysely<Database>, dialect: Dialect): Db {
  return {
    kysely,
    engine: dialect.engine,
    dialect,
    ping: async () => {
      try {
        await sql`select 1`.execute(kysely);
        return true;
      } catch {
        return false;
      }
    },
    close: () => kysely.destroy(),
  };
}

/**
 * A pool's configuration with startup options added to those the URL may carry. pg lets a URL's own
 * `options` replace the configuration's, so they are joined here: with `?options=-c search_path=x`
 * in DATABASE_URL (as the tests and the bench use), the worker's connections had silently lost
 * `synchronous_commit=off`.
 */
function withStartupOptions(url: string, startup: readonly string[], max: number): pg.PoolConfig {
  if (startup.length === 0) return { connectionString: url, max };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, max, options: startup.join(' ') };
  }
  const own = parsed.searchParams.get('options');
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), max, options: [own ?? '', ...startup].join(' ').trim() };
}

async function connectPostgres(url: string, options: DatabaseOptions): Promise<Db> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  if (schema !== undefined) {
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query(`create schema if not exists "${schema}"`);
    } finally {
      await setup.end();
    }
  }
  const schemaOption = schema === undefined ? [] : [`-c search_path="${schema}"`];
  const pool = new pg.Pool(withStartupOptions(url, schemaOption, options.poolSize ?? 10));
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  // Nor a checked-out one: pg emits 'error' on a client whose server goes away between queries (e.g.
  // PostgreSQL shut down while a transaction awaits its next statement), and pg-pool listens only while
  // the client is idle. Unhandled, that event ended the process; the query in progress fails instead
  // (→ 503) and the pool discards the client (test/reliability/db-outage.test.ts).
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const origin = randomUUID();
  const listen = async (channel: string, onNotify: () => void): Promise<() => Promise<void>> => {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
    const client = new pg.Client({ connectionString: url });
    // A lost listener connection only costs promptness: workers still poll.
    client.on('error', () => undefined);
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload !== origin) onNotify();
    });
    await client.connect();
    await client.query(`listen ${channel}`);
    return () => client.end();
  };
  let relaxed: Kysely<Database> | undefined;
  let extraPool: pg.Pool | undefined;
  const relaxedPool = (): Kysely<Database> => {
    if (relaxed !== undefined) return relaxed;
    // A startup option, so no statement races the connection's first query. (A forced generic plan
    // saved the claim's planning but chose scans that cost as much: measured, no gain.)
    const extra = new pg.Pool(
      withStartupOptions(url, ['-c synchronous_commit=off', ...schemaOption], Math.min(4, options.poolSize ?? 10)),
    );
    extra.on('error', () => undefined);
    // As on the main pool: a checked-out client losing its server must not end the process.
    extra.on('connect', (client) => client.on('error', () => undefined));
    extraPool = extra;
    relaxed = new Kysely<Database>({ dialect: new PostgresDialect({ pool: extra }) });
    return relaxed;
  };
  const prepared = async <Row>(name: string, text: string, values: readonly unknown[]): Promise<Row[]> => {
    relaxedPool();
    const result = await (extraPool as pg.Pool).query<Row & pg.QueryResultRow>({ name, text, values: [...values] });
    return result.rows;
  };
  const base = handle(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), postgresDialect);
  return {
    ...base,
    listen,
    origin,
    relaxed: relaxedPool,
    prepared,
    close: async () => {
      await relaxed?.destroy();
      await base.close();
    },
  };
}
