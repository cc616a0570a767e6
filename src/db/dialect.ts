/**
 * Where the two engines differ, asked in one place: each engine answers this interface once
 * (dialect/sqlite.ts, dialect/postgres.ts), `connectDatabase` picks the answer and the `Db` carries
 * it. Stores and services ask the dialect for a spelling, a lock or a fact about the engine's
 * writers; none of them asks which engine it is. What SQL both engines read alike is written
 * directly where it is used.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

type Executor = Kysely<Database>;

/** A column of a bulk insert (bulk-insert.ts) and its PostgreSQL type, which its JSON value is cast to. */
export interface BulkColumn {
  name: string;
  pgType: 'text' | 'integer' | 'bigint';
}

/** Locks held by a connection until it lets them go, keyed by a number and the schema. */
export interface SessionLock {
  /** True when the lock was free and is now this connection's. */
  tryLock(connection: Executor, key: number): Promise<boolean>;
  unlock(connection: Executor, key: number): Promise<void>;
}

export interface Dialect {
  /** Which engine answers: for reports (the start-up line, the storage page), not for choosing SQL. */
  readonly engine: Engine;

  /**
   * One writer at a time (SQLite: a write transaction holds the write lock from BEGIN), so insertion
   * order is commit order and a read-then-write needs no row lock. Where writers run side by side
   * (PostgreSQL), ids drawn in one transaction may become visible after those of a later one.
   */
  readonly serialWriters: boolean;
  /** Queries run on the event loop (better-sqlite3 is synchronous): a query holds the loop while it runs. */
  readonly blocksEventLoop: boolean;
  /** Data-modifying statements may stand in a WITH, so a batch of writes to several tables is one statement. */
  readonly writableCtes: boolean;
  /** Deleted rows leave free pages in the file that only a vacuum returns (retention/sqlite-space.ts). */
  readonly keepsFreePages: boolean;

  /** Appended to a SELECT: locks its rows, skipping those another transaction holds; empty for serial writers. */
  readonly skipLocked: RawBuilder<unknown>;
  /** An advisory lock until the transaction ends, keyed by `key` and the schema; none for serial writers. */
  transactionLock(trx: Executor, key: number, mode: 'shared' | 'exclusive'): Promise<void>;
  /** Serialises concurrent migration runs of one schema, until the transaction ends. */
  lockMigrations(trx: Executor): Promise<void>;
  /** Session-level advisory locks; undefined where there are none (SQLite's only lock is its write lock). */
  readonly sessionLock: SessionLock | undefined;
  /** Tells every listening node on `channel` when the transaction commits; nothing without LISTEN. */
  notify(trx: Executor, channel: string, payload: string): Promise<void>;
  /**
   * Leaves the offers change log to this transaction for its remaining statements: the triggers write
   * no entries for it, and it must record its changes itself. False where the triggers always write
   * them (SQLite's row triggers, whose entries cost little there).
   */
  recordOfferChangesByWriter(trx: Executor): Promise<boolean>;

  /** `column`, kept out of the planner's choice of index where it would pick a worse one. */
  unindexed(column: string): RawBuilder<unknown>;
  /** `<id> in (query)`, spelled so that the planner looks the few ids the query answers up by key. */
  inSubquery(query: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The column the deliveries' due indexes end with (migration 0012): the order rows due together go in. */
  readonly deliveriesDueOrder: RawBuilder<unknown>;
  /** A CTE `name (key, count)` of these pairs, bound as parameters so its text is the same whatever they hold. */
  keyCounts(name: string, columns: readonly [string, string], pairs: ReadonlyMap<string, number>): RawBuilder<unknown>;
  /** The elements of a JSON array column as a table `alias`, and a field of each element. */
  jsonElements(array: string, alias: string): { from: RawBuilder<unknown>; field(name: string): RawBuilder<unknown> };
  /** A SELECT of `batch` (JSON text, an array of arrays), one value per column, typed as the columns. */
  jsonRows(columns: readonly BulkColumn[], batch: string): RawBuilder<unknown>;
  /** The nearest-rank percentile (`percent` of 100) of `column` over `sample`, as one row `p`. */
  percentile(percent: number, column: string, sample: RawBuilder<unknown>): RawBuilder<{ p: number | string | null }>;

  /** The planner's row estimates of these tables; empty where the engine keeps none (then they are counted). */
  rowEstimates(db: Executor, tables: readonly string[]): Promise<Map<string, number>>;
  /** The database's size in bytes, and the bytes of free pages inside it (null where it keeps none). */
  size(db: Executor): Promise<{ bytes: number; freeBytes: number | null }>;
  /** Refreshes the planner's statistics of tables that lost many rows; nothing where none are kept. */
  analyze(db: Executor, tables: readonly string[]): Promise<void>;
  /**
   * Gives this connection's page cache room for a bulk write, for as long as the connection lives (a
   * command's): nothing where the server's shared buffers serve every connection.
   */
  roomForBulkWrite(db: Executor): Promise<void>;
  /** Copies the write-ahead log into the database file (SQLite); nothing where the server does it. */
  checkpoint(db: Executor, mode: 'passive' | 'truncate'): Promise<void>;
}
