/**
 * Feed positions (`events.seq`, migration 0016), given in the order events become visible:
 *
 * - SQLite: the writer stamps them as it inserts, from the one-row counter `event_sequence`, one
 *   statement per batch. One writer at a time: insertion order is commit order.
 * - PostgreSQL: writers insert without a position; `stampCommitted` gives the committed events theirs
 *   in a transaction of its own that holds the counter row locked until it commits. A stamper sees only
 *   committed events, and the next stamper waits for the lock, so positions become visible in order:
 *   an event that commits late gets a later position instead of a gap behind the readers.
 */
import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';
import { EVENTS_CHANNEL } from './channels.js';

/**
 * Reserves `count` consecutive positions and answers the first where writers are serial (SQLite);
 * undefined where they are not (PostgreSQL): the sequencer stamps them after the commit.
 */
export async function reservePositions(trx: Executor, dialect: Dialect, count: number): Promise<number | undefined> {
  if (count === 0 || !dialect.serialWriters) return undefined;
  const { rows } = await sql<{ last: number }>`
    update event_sequence set last = last + ${count} where id = 1 returning last`.execute(trx);
  const last = rows[0]?.last;
  if (last === undefined) throw new Error('event_sequence has no row (migration 0016)');
  return Number(last) - count + 1;
}

/** Events one stamping transaction positions at most (more wait for the next). */
const STAMP_BATCH = 5000;

/**
 * PostgreSQL: gives the committed events without a position theirs, in insertion order, a batch per
 * transaction until none is left; answers how many. Notifies the feed's waiters of every node.
 */
export async function stampCommitted(db: Executor, dialect: Dialect): Promise<number> {
  let total = 0;
  for (;;) {
    const stamped = await stampBatch(db, dialect);
    total += stamped;
    if (stamped < STAMP_BATCH) return total;
  }
}

async function stampBatch(db: Executor, dialect: Dialect): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ last: string }>`select last from event_sequence where id = 1 for update`.execute(trx);
    const last = Number(rows[0]?.last ?? 0);
    const stamped = await sql<{ seq: string }>`
      update events e set seq = ${last} + b.rank
      from (select id, row_number() over (order by inserted) as rank
            from events where seq is null order by inserted limit ${STAMP_BATCH}) b
      where e.id = b.id
      returning e.seq`.execute(trx);
    const count = stamped.rows.length;
    if (count === 0) return 0;
    await sql`update event_sequence set last = ${last + count} where id = 1`.execute(trx);
    await dialect.notify(trx, EVENTS_CHANNEL, '');
    return count;
  });
}
