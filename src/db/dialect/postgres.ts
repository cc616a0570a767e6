/**
 * PostgreSQL's answers (dialect.ts). Writers run side by side: rows are locked (SKIP LOCKED where a
 * worker may pass over them), advisory locks are keyed by the schema so schemas sharing a database
 * never wait for each other, and commits are announced with NOTIFY. JSON is cast to jsonb.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';
import { OFFER_CHANGES_SETTING, RECORDED_BY_WRITER } from '../migrations/0021_offer_changes_recorded_by_writer.js';
import type { Database } from '../schema.js';

type Executor = Kysely<Database>;

const key2 = (key: number) => sql`${key}, hashtext(current_schema())`;

export const postgresDialect: Dialect = {
  engine: 'postgres',
  serialWriters: false,
  blocksEventLoop: false,
  writableCtes: true,
  keepsFreePages: false,

  skipLocked: sql`for update skip locked`,
  transactionLock: async (trx, key, mode) => {
    const lock = mode === 'shared' ? sql`pg_advisory_xact_lock_shared` : sql`pg_advisory_xact_lock`;
    await sql`select ${lock}(${key2(key)})`.execute(trx);
  },
  lockMigrations: async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('shelfmark-migrations:' || current_schema()))`.execute(trx);
  },
  sessionLock: {
    tryLock: async (connection, key) => {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key2(key)}) as locked`.execute(
        connection,
      );
      return rows[0]?.locked === true;
    },
    unlock: async (connection, key) => {
      await sql`select pg_advisory_unlock(${key2(key)})`.execute(connection);
    },
  },
  notify: async (trx, channel, payload) => {
    await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
  },
  recordOfferChangesByWriter: async (trx) => {
    await sql`select set_config(${OFFER_CHANGES_SETTING}, ${RECORDED_BY_WRITER}, true)`.execute(trx);
    return true;
  },

  unindexed: (column) => sql.raw(column),
  // As `in (...)` the generic plan hash-joined the ids against a scan of the whole table, which grows
  // with the table; `= some(array(...))` makes them an init plan looked up by key.
  inSubquery: (query) => sql`= some(array(${query}))`,
  deliveriesDueOrder: sql`id`,
  keyCounts: (name, [key, count], pairs) =>
    sql`${sql.raw(name)} as (select * from unnest(${[...pairs.keys()]}::text[], ${[...pairs.values()]}::integer[]) as ${sql.raw(name)} (${sql.raw(key)}, ${sql.raw(count)}))`,
  jsonElements: (array, alias) => ({
    from: sql`jsonb_array_elements(${sql.raw(array)}::jsonb) as ${sql.raw(alias)}`,
    field: (name) => sql`${sql.raw(`${alias}.value`)} ->> ${sql.lit(name)}`,
  }),
  jsonRows: (columns, batch) =>
    sql`select ${sql.raw(columns.map((column, index) => `(v ->> ${index})::${column.pgType}`).join(', '))} from jsonb_array_elements(${batch}::jsonb) as v`,
  percentile: (percent, column, sample) =>
    sql`
            select percentile_disc(${sql.raw(String(percent / 100))}) within group (order by ${sql.raw(column)}) as p from (${sample}) s`,

  // pg_class.reltuples: kept by autovacuum and the prune's ANALYZE; -1 (never analysed) is counted.
  rowEstimates: async (db: Executor, tables) => {
    const { rows } = await sql<{ relname: string; reltuples: number }>`
        select relname, reltuples from pg_class
        where relkind = 'r' and relnamespace = current_schema()::regnamespace and relname in (${sql.join([...tables])})`.execute(
      db,
    );
    return new Map(rows.map((row) => [row.relname, Number(row.reltuples)]));
  },
  // This schema's tables with their indexes, not the whole database: it may share one (DATABASE_URL's
  // search_path), and pg_database_size() stats every file of every schema, slow where there are many.
  size: async (db) => {
    const { rows } = await sql<{ bytes: number }>`
        select coalesce(sum(pg_total_relation_size(c.oid)), 0) as bytes from pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'm')`.execute(db);
    return { bytes: Number(rows[0]?.bytes ?? 0), freeBytes: null };
  },
  roomForBulkWrite: async () => undefined,
  analyze: async (db, tables) => {
    if (tables.length === 0) return;
    await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
  },
  checkpoint: async () => undefined,
};
