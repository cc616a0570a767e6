import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

/**
 * PostgreSQL: the offers change log (0003) written once per statement instead of once per row. A
 * statement's rows come from its transition tables in one INSERT … SELECT, and it NOTIFYs once: a row
 * trigger ran PL/pgSQL, an INSERT and a NOTIFY for every row, which a bulk import of a thousand rows
 * a statement paid a thousand times (docs/performance.md#decisions). The entries are the same: one per
 * inserted or deleted row, and for an update the old EAN and, when it changed, the new one. SQLite's
 * row triggers stay: they run no interpreter and notify nobody.
 */
const at = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
const notify = `if found then perform pg_notify('shelfmark_offers', ''); end if;`;

const STATEMENTS: readonly (readonly [string, string, string])[] = [
  ['insert', 'referencing new table as changed', `select ean, ${at} from changed`],
  ['delete', 'referencing old table as changed', `select ean, ${at} from changed`],
  [
    'update',
    'referencing old table as old_rows new table as new_rows',
    `select ean, ${at} from (
       select 1 as part, o.id, o.ean from old_rows o
       union all
       select 2, n.id, n.ean from new_rows n inner join old_rows o on o.id = n.id where n.ean is distinct from o.ean
     ) e order by id, part`,
  ],
];

export function offerChangesPerStatement(engine: Engine): Migration {
  const run = (db: UntypedDb, text: string) => sql.raw(text).execute(db);
  return {
    async up(db: UntypedDb) {
      if (engine !== 'postgres') return;
      await run(db, 'drop trigger offers_changed on offers');
      for (const [event, referencing, select] of STATEMENTS) {
        await run(
          db,
          `create function shelfmark_offers_${event}d() returns trigger language plpgsql as $$
           begin
             insert into offer_changes (ean, changed_at) ${select};
             ${notify}
             return null;
           end $$`,
        );
        await run(
          db,
          `create trigger offers_${event}d after ${event} on offers ${referencing}
           for each statement execute function shelfmark_offers_${event}d()`,
        );
      }
    },
    async down(db: UntypedDb) {
      if (engine !== 'postgres') return;
      for (const [event] of STATEMENTS) {
        await run(db, `drop trigger if exists offers_${event}d on offers`);
        await run(db, `drop function if exists shelfmark_offers_${event}d()`);
      }
      await run(
        db,
        'create trigger offers_changed after insert or update or delete on offers for each row execute function shelfmark_offer_changed()',
      );
    },
  };
}
