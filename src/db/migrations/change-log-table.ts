/**
 * A trigger-written change log for one table (migrations 0003 and 0010): `<row>_changes (id, <key>,
 * changed_at)`, one entry per key a write touched (an update that changes the key touches both), written
 * by triggers in the writing transaction itself, so no write path (API, CLI import, hand-written SQL)
 * escapes it. src/db/change-log.ts reads it.
 */
import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

export interface ChangeLogTable {
  /** The table followed, e.g. `offers`. */
  source: string;
  /** Its row in the singular, naming the log (`offer_changes`) and the function (`shelfmark_offer_changed`). */
  row: string;
  /** The key column recorded, e.g. `ean`. */
  key: string;
  /** PostgreSQL: a channel the trigger NOTIFYs on every change, for readers that listen. */
  notify?: string;
}

export function changeLogTable(engine: Engine, { source, row, key, notify }: ChangeLogTable): Migration {
  const log = `${row}_changes`;
  const fn = `shelfmark_${row}_changed`;
  const trigger = `${source}_changed`;
  const run = (db: UntypedDb, text: string) => sql.raw(text).execute(db);
  return {
    async up(db: UntypedDb) {
      if (engine === 'postgres') {
        await run(
          db,
          `create table ${log} (id bigserial primary key, ${key} text not null, changed_at bigint not null)`,
        );
        await run(
          db,
          `create function ${fn}() returns trigger language plpgsql as $$
          declare
            at bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
          begin
            if tg_op in ('UPDATE', 'DELETE') then
              insert into ${log} (${key}, changed_at) values (old.${key}, at);
            end if;
            if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.${key} is distinct from old.${key}) then
              insert into ${log} (${key}, changed_at) values (new.${key}, at);
            end if;${notify === undefined ? '' : `\n            perform pg_notify('${notify}', '');`}
            return null;
          end $$`,
        );
        await run(
          db,
          `create trigger ${trigger} after insert or update or delete on ${source} for each row execute function ${fn}()`,
        );
      } else {
        await run(
          db,
          `create table ${log} (id integer primary key autoincrement, ${key} text not null, changed_at integer not null)`,
        );
        const now = `cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
        await run(
          db,
          `create trigger ${trigger}_insert after insert on ${source} begin insert into ${log} (${key}, changed_at) values (new.${key}, ${now}); end`,
        );
        await run(
          db,
          `create trigger ${trigger}_update after update on ${source} begin
          insert into ${log} (${key}, changed_at) values (old.${key}, ${now});
          insert into ${log} (${key}, changed_at) select new.${key}, ${now} where new.${key} <> old.${key};
        end`,
        );
        await run(
          db,
          `create trigger ${trigger}_delete after delete on ${source} begin insert into ${log} (${key}, changed_at) values (old.${key}, ${now}); end`,
        );
      }
      await db.schema.createIndex(`${log}_changed_at`).on(log).column('changed_at').execute();
    },
    async down(db: UntypedDb) {
      await run(db, `drop table if exists ${log}`);
      if (engine === 'postgres') await run(db, `drop function if exists ${fn}() cascade`);
      else
        for (const name of ['insert', 'update', 'delete']) await run(db, `drop trigger if exists ${trigger}_${name}`);
    },
  };
}
