import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

/**
 * PostgreSQL: a transaction that records its offer changes itself (the offers import: one entry per
 * EAN it changed, or one that tells every reader to forget everything, at its end) sets
 * `shelfmark.offer_changes` to `by_writer`, and the offers' statement triggers (0020) skip their
 * entries for it. A large import otherwise wrote an entry per offer that its final entry made moot
 * (docs/performance.md#decisions). Every other writer, hand-written SQL included, still has its
 * changes logged by the triggers. SQLite keeps its row triggers.
 */
export const OFFER_CHANGES_SETTING = 'shelfmark.offer_changes';
export const RECORDED_BY_WRITER = 'by_writer';

const TRIGGERS: readonly (readonly [string, string])[] = [
  ['insert', 'referencing new table as changed'],
  ['delete', 'referencing old table as changed'],
  ['update', 'referencing old table as old_rows new table as new_rows'],
];

export function offerChangesRecordedByWriter(engine: Engine): Migration {
  const run = (db: UntypedDb, text: string) => sql.raw(text).execute(db);
  const create = (event: string, referencing: string, when: string) =>
    `create trigger offers_${event}d after ${event} on offers ${referencing}
     for each statement ${when} execute function shelfmark_offers_${event}d()`;
  return {
    async up(db: UntypedDb) {
      if (engine !== 'postgres') return;
      for (const [event, referencing] of TRIGGERS) {
        await run(db, `drop trigger offers_${event}d on offers`);
        await run(
          db,
          create(
            event,
            referencing,
            `when (current_setting('${OFFER_CHANGES_SETTING}', true) is distinct from '${RECORDED_BY_WRITER}')`,
          ),
        );
      }
    },
    async down(db: UntypedDb) {
      if (engine !== 'postgres') return;
      for (const [event, referencing] of TRIGGERS) {
        await run(db, `drop trigger offers_${event}d on offers`);
        await run(db, create(event, referencing, ''));
      }
    },
  };
}
