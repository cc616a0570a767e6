import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { AnyDb } from './index.js';

/**
 * The offers change log feeds the in-process offers read model of every node (src/offers/read-model.ts).
 * Triggers write it in the same transaction as the offer change, so no write path (API, CLI import,
 * hand-written SQL) can change an offer without every node learning of it. On PostgreSQL the trigger
 * also NOTIFYs, so other nodes catch up at commit instead of at their next poll.
 */
export function offerChanges(engine: Engine): Migration {
  return {
    async up(db: AnyDb) {
      if (engine === 'postgres') {
        await sql`create table offer_changes (id bigserial primary key, ean text not null, changed_at bigint not null)`.execute(
          db,
        );
        await sql`create function shelfmark_offer_changed() returns trigger language plpgsql as $$
          declare
            at bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
          begin
            if tg_op in ('UPDATE', 'DELETE') then
              insert into offer_changes (ean, changed_at) values (old.ean, at);
            end if;
            if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.ean is distinct from old.ean) then
              insert into offer_changes (ean, changed_at) values (new.ean, at);
            end if;
            perform pg_notify('shelfmark_offers', '');
            return null;
          end $$`.execute(db);
        await sql`create trigger offers_changed after insert or update or delete on offers for each row execute function shelfmark_offer_changed()`.execute(
          db,
        );
      } else {
        await sql`create table offer_changes (id integer primary key autoincrement, ean text not null, changed_at integer not null)`.execute(
          db,
        );
        const now = sql.raw(`cast((julianday('now') - 2440587.5) * 86400000 as integer)`);
        await sql`create trigger offers_changed_insert after insert on offers begin insert into offer_changes (ean, changed_at) values (new.ean, ${now}); end`.execute(
          db,
        );
        await sql`create trigger offers_changed_update after update on offers begin
          insert into offer_changes (ean, changed_at) values (old.ean, ${now});
          insert into offer_changes (ean, changed_at) select new.ean, ${now} where new.ean <> old.ean;
        end`.execute(db);
        await sql`create trigger offers_changed_delete after delete on offers begin insert into offer_changes (ean, changed_at) values (old.ean, ${now}); end`.execute(
          db,
        );
      }
      await db.schema.createIndex('offer_changes_changed_at').on('offer_changes').column('changed_at').execute();
    },
    async down(db: AnyDb) {
      await sql`drop table if exists offer_changes`.execute(db);
      if (engine === 'postgres') await sql`drop function if exists shelfmark_offer_changed() cascade`.execute(db);
      else
        for (const name of ['insert', 'update', 'delete'])
          await sql.raw(`drop trigger if exists offers_changed_${name}`).execute(db);
    },
  };
}
