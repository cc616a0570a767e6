import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { AnyDb } from './index.js';

/**
 * The schools change log feeds the in-process school directory of every node (src/lml/school-directory.ts),
 * which answers the first level of the structure tree. Triggers write it in the same transaction as the
 * change, as the offers change log does (0003), so no write path can change a school unseen.
 */
export function schoolChanges(engine: Engine): Migration {
  return {
    async up(db: AnyDb) {
      if (engine === 'postgres') {
        await sql`create table school_changes (id bigserial primary key, identifier text not null, changed_at bigint not null)`.execute(
          db,
        );
        await sql`create function shelfmark_school_changed() returns trigger language plpgsql as $$
          declare
            at bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
          begin
            if tg_op in ('UPDATE', 'DELETE') then
              insert into school_changes (identifier, changed_at) values (old.identifier, at);
            end if;
            if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.identifier is distinct from old.identifier) then
              insert into school_changes (identifier, changed_at) values (new.identifier, at);
            end if;
            return null;
          end $$`.execute(db);
        await sql`create trigger schools_changed after insert or update or delete on schools for each row execute function shelfmark_school_changed()`.execute(
          db,
        );
      } else {
        await sql`create table school_changes (id integer primary key autoincrement, identifier text not null, changed_at integer not null)`.execute(
          db,
        );
        const now = sql.raw(`cast((julianday('now') - 2440587.5) * 86400000 as integer)`);
        await sql`create trigger schools_changed_insert after insert on schools begin insert into school_changes (identifier, changed_at) values (new.identifier, ${now}); end`.execute(
          db,
        );
        await sql`create trigger schools_changed_update after update on schools begin
          insert into school_changes (identifier, changed_at) values (old.identifier, ${now});
          insert into school_changes (identifier, changed_at) select new.identifier, ${now} where new.identifier <> old.identifier;
        end`.execute(db);
        await sql`create trigger schools_changed_delete after delete on schools begin insert into school_changes (identifier, changed_at) values (old.identifier, ${now}); end`.execute(
          db,
        );
      }
      await db.schema.createIndex('school_changes_changed_at').on('school_changes').column('changed_at').execute();
    },
    async down(db: AnyDb) {
      await sql`drop table if exists school_changes`.execute(db);
      if (engine === 'postgres') await sql`drop function if exists shelfmark_school_changed() cascade`.execute(db);
      else
        for (const name of ['insert', 'update', 'delete'])
          await sql.raw(`drop trigger if exists schools_changed_${name}`).execute(db);
    },
  };
}
