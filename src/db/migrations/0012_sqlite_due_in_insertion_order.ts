import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

/**
 * SQLite: the due indexes order by due time, then insertion order (the rowid every SQLite index
 * ends with) instead of the id. Ids are time-ordered only to the millisecond (ids.ts): the deliveries
 * of one fan-out share their millisecond and their due time, so in id order a claim of 64 picked rows
 * spread over the whole fan-out, each on a page of its own, and so did the group commits after it.
 * In insertion order they sit side by side: in bench/db-costs.ts a claim and a group commit wrote fewer
 * WAL pages and the worker spent less CPU a delivery (docs/performance.md#decisions).
 * PostgreSQL keeps (next_attempt_at, id): there a claim's row versions need free room on the rows'
 * own pages (HOT updates, migration 0011), which rows side by side exhaust.
 */
export function sqliteDueInInsertionOrder(engine: Engine): Migration {
  const recreate = async (db: UntypedDb, columns: 'next_attempt_at' | 'next_attempt_at, id'): Promise<void> => {
    await db.schema.dropIndex('deliveries_due_first').ifExists().execute();
    await db.schema.dropIndex('deliveries_due_retry').ifExists().execute();
    await sql`create index deliveries_due_first on deliveries (${sql.raw(columns)}) where status = 'pending' and attempt_count = 0`.execute(
      db,
    );
    await sql`create index deliveries_due_retry on deliveries (${sql.raw(columns)}) where status = 'pending' and attempt_count > 0`.execute(
      db,
    );
  };
  return {
    async up(db: UntypedDb) {
      if (engine === 'sqlite') await recreate(db, 'next_attempt_at');
    },
    async down(db: UntypedDb) {
      if (engine === 'sqlite') await recreate(db, 'next_attempt_at, id');
    },
  };
}
