/**
 * What the storage view reads, each cheap: rows per table, the oldest row per table through an index,
 * and the database's size.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';
import type { BoundedTable } from './policy.js';

/** Tables PostgreSQL estimates below this many rows are counted exactly (cheap at that size). */
export const EXACT_BELOW = 100_000;

const count = (rows: readonly { n: number | string | bigint }[]): number => Number(rows[0]?.n ?? 0);

export class StorageStore {
  constructor(private readonly dialect: Dialect) {}

  /**
   * Rows per table. SQLite counts exactly (a scan of the table's smallest index, growing with the table
   * but acceptable for an operator's page; docs/performance.md#decisions); PostgreSQL
   * reads the planner's estimate (pg_class.reltuples, kept by autovacuum and the prune's ANALYZE) and
   * counts exactly only tables it estimates below EXACT_BELOW rows, or never analysed.
   */
  async rowCounts(
    db: Executor,
    tables: readonly BoundedTable[],
  ): Promise<Map<BoundedTable, { rows: number; exact: boolean }>> {
    const result = new Map<BoundedTable, { rows: number; exact: boolean }>();
    const estimates = await this.dialect.rowEstimates(db, tables);
    for (const table of tables) {
      const estimate = estimates.get(table);
      if (estimate !== undefined && estimate >= EXACT_BELOW) {
        result.set(table, { rows: Math.round(estimate), exact: false });
        continue;
      }
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
      result.set(table, { rows: count(rows), exact: true });
    }
    return result;
  }

  /** The oldest row's time per table, each read through an index (or from a small table). */
  async oldest(db: Executor, finishedStatuses: readonly string[]): Promise<Record<BoundedTable, number | null>> {
    const min = async (query: RawBuilder<{ t: number | string | null }>): Promise<number | null> => {
      const value = (await query.execute(db)).rows[0]?.t;
      return value === null || value === undefined ? null : Number(value);
    };
    const delivery = await Promise.all([
      ...finishedStatuses.map((status) =>
        min(sql`select min(created_at) as t from deliveries where status = ${status} and status <> 'pending'`),
      ),
      // The queue's two lanes, each its own partial index (migration 0009).
      min(sql`select min(created_at) as t from deliveries where status = 'pending' and attempt_count = 0`),
      min(sql`select min(created_at) as t from deliveries where status = 'pending' and attempt_count > 0`),
    ]);
    const known = delivery.filter((value): value is number => value !== null);
    return {
      deliveries: known.length === 0 ? null : Math.min(...known),
      delivery_attempts: await min(sql`select started_at as t from delivery_attempts order by id limit 1`),
      events: await min(sql`select min(created_at) as t from events`),
      delivery_stats: await min(sql`select min(hour) as t from delivery_stats`),
      idempotency_keys: await min(sql`select created_at as t from idempotency_keys order by expires_at limit 1`),
      web_sessions: await min(sql`select min(created_at) as t from web_sessions`),
      portal_links: await min(sql`select min(created_at) as t from portal_links`),
      offer_changes: await min(sql`select min(changed_at) as t from offer_changes`),
      school_changes: await min(sql`select min(changed_at) as t from school_changes`),
      // The chain's first record is its oldest (seq follows time); read by the primary key.
      audit_records: await min(sql`select at as t from audit_records order by seq limit 1`),
    };
  }

  /** The database's size in bytes (PostgreSQL: its schema's tables with their indexes), and (SQLite) the bytes of free pages inside the file. */
  size(db: Executor): Promise<{ bytes: number; freeBytes: number | null }> {
    return this.dialect.size(db);
  }
}
