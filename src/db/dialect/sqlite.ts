/**
 * SQLite's answers (dialect.ts). One writer at a time holds the write lock from BEGIN (db/sqlite.ts),
 * so it needs no row or advisory locks and has no LISTEN; better-sqlite3 runs every query on the
 * event loop. JSON travels as text read with `json_each` / `jsonb_each`.
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';

/** The page cache of a connection that writes in bulk (the offers import command). */
const BULK_WRITE_CACHE_MIB = 64;

type Executor = Kysely<Database>;

export interface Pages {
  pages: number;
  free: number;
  size: number;
}

/** The file's pages, its free pages and the page size. */
export async function sqlitePages(db: Executor): Promise<Pages> {
  const { rows } = await sql<Pages>`
    select p.page_count as pages, f.freelist_count as free, s.page_size as size
    from pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s`.execute(db);
  const row = rows[0];
  return { pages: Number(row?.pages ?? 0), free: Number(row?.free ?? 0), size: Number(row?.size ?? 0) };
}

const nothing = async (): Promise<void> => undefined;

export const sqliteDialect: Dialect = {
  engine: 'sqlite',
  serialWriters: true,
  blocksEventLoop: true,
  writableCtes: false,
  keepsFreePages: true,

  skipLocked: sql``,
  transactionLock: nothing,
  lockMigrations: nothing,
  sessionLock: undefined,
  notify: nothing,
  recordOfferChangesByWriter: async () => false,

  // A unary plus keeps a column out of SQLite's index choice: on a bare `status = 'pending'` the
  // planner walked every pending row through the status index instead of looking a few ids up by key.
  unindexed: (column) => sql.raw(`+${column}`),
  inSubquery: (query) => sql`in (${query})`,
  // The due indexes end with the rowid (migration 0012): a fan-out's deliveries, due at the same
  // millisecond, are claimed in insertion order, side by side on few pages.
  deliveriesDueOrder: sql`rowid`,
  // Materialised: otherwise SQLite parses the JSON again for every row it is joined to, so a claim
  // costs more the more leases are held (bench/db-costs.ts; docs/performance.md#decisions).
  keyCounts: (name, [key, count], pairs) =>
    sql`${sql.raw(name)} as materialized (select value ->> 0 as ${sql.raw(key)}, value ->> 1 as ${sql.raw(count)} from json_each(${JSON.stringify([...pairs])}))`,
  jsonElements: (array, alias) => ({
    from: sql`json_each(${sql.raw(array)}) as ${sql.raw(alias)}`,
    field: (name) => sql`json_extract(${sql.raw(`${alias}.value`)}, ${sql.lit(`$.${name}`)})`,
  }),
  // `jsonb_each` hands each row's array over already parsed; `json_each` would parse the row's text
  // again for every `->>` (docs/performance.md#decisions).
  jsonRows: (columns, batch) =>
    sql`select ${sql.raw(columns.map((_column, index) => `value ->> ${index}`).join(', '))} from jsonb_each(${batch})`,
  percentile: (percent, column, sample) => {
    const c = sql.raw(column);
    return sql`
            select ${c} as p from (
              select ${c}, row_number() over (order by ${c}) as rn, count(*) over () as n from (${sample}) s
            ) r where rn = (${sql.raw(String(percent))} * n + 99) / 100`;
  },

  // Counted exactly: a scan of the table's smallest index, acceptable for an operator's page.
  rowEstimates: async () => new Map(),
  size: async (db) => {
    const { pages, free, size } = await sqlitePages(db);
    return { bytes: pages * size, freeBytes: free * size };
  },
  analyze: nothing,
  // Index pages of a large import evicted from the small default cache were read back for the next
  // batch (docs/performance.md#decisions). A negative cache_size is in KiB.
  roomForBulkWrite: async (db) => {
    await sql`pragma cache_size = ${sql.raw(String(-BULK_WRITE_CACHE_MIB * 1024))}`.execute(db);
  },
  checkpoint: async (db, mode) => {
    await sql`pragma wal_checkpoint(${sql.raw(mode)})`.execute(db);
  },
};
