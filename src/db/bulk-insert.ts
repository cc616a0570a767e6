/**
 * Many rows in one INSERT whose text does not depend on their number: the rows travel as one JSON
 * parameter, an array of arrays, read by SQLite's `jsonb_each` (as the delivery queue's group commit
 * does) and PostgreSQL's `jsonb_array_elements`. A VALUES list with a placeholder per cell costs the
 * driver, the query builder and PostgreSQL's parser in proportion to the cells, and a new statement
 * text for every batch size; arrays per column (`unnest`) cost pg's array escaping in JavaScript,
 * per cell (docs/performance.md#decisions).
 */
import { sql } from 'kysely';
import type { Executor } from './database.js';
import type { BulkColumn, Dialect } from './dialect.js';

export type { BulkColumn };

/**
 * Inserts `rows` (each one value per column, in the columns' order) into `table` in one statement;
 * answers the `returning` columns of every row inserted.
 */
export async function bulkInsert<Returned extends Record<string, unknown> = Record<string, never>>(
  db: Executor,
  dialect: Dialect,
  table: string,
  columns: readonly BulkColumn[],
  rows: readonly (readonly unknown[])[],
  returning: readonly (keyof Returned & string)[] = [],
): Promise<Returned[]> {
  if (rows.length === 0) return [];
  const names = sql.raw(columns.map((column) => column.name).join(', '));
  const answer = returning.length === 0 ? sql`` : sql.raw(` returning ${returning.join(', ')}`);
  const { rows: inserted } = await sql<Returned>`
    insert into ${sql.table(table)} (${names}) ${dialect.jsonRows(columns, JSON.stringify(rows))}${answer}`.execute(db);
  return inserted;
}
