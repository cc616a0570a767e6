import { type Migration, sql } from 'kysely';
import type { Engine } from '../database.js';
import type { UntypedDb } from './untyped.js';

/**
 * The event feed: `events.seq`, an event's place in the feed, given when the event is
 * visible, in the order events become visible, so a reader following it never skips a later commit
 * (docs/architecture.md#event-feed-order); and the offer's EAN on offer events, so a replay applies a
 * subscription's filter to past events as the fan-out does to new ones.
 *
 * `event_sequence` (one row) holds the last position given; the feed's head is that row.
 * - SQLite: the writer stamps seq as it inserts (one writer at a time: insertion order is commit order).
 * - PostgreSQL: events are inserted without seq (`inserted` keeps the order within a transaction) and
 *   the sequencer (src/events/feed-sequencer.ts) stamps the committed ones, holding the counter row
 *   locked until it commits, so positions become visible in order. `events_unstamped` finds them.
 * Existing events get positions in the order they were inserted.
 */
export function eventFeed(engine: Engine): Migration {
  return {
    async up(db: UntypedDb) {
      await db.schema.alterTable('events').addColumn('ean', 'text').execute();
      await sql`create table event_sequence (id integer primary key check (id = 1), last bigint not null)`.execute(db);
      if (engine === 'postgres') {
        await sql`create sequence events_inserted`.execute(db);
        await sql`alter table events add column inserted bigint not null default nextval('events_inserted')`.execute(
          db,
        );
        await sql`alter sequence events_inserted owned by events.inserted`.execute(db);
        await sql`alter table events add column seq bigint`.execute(db);
        await sql`update events set seq = inserted`.execute(db);
        await sql`create unique index events_feed on events (seq) where seq is not null`.execute(db);
        await sql`create index events_unstamped on events (inserted) where seq is null`.execute(db);
      } else {
        await db.schema.alterTable('events').addColumn('seq', 'integer').execute();
        await sql`update events set seq = rowid`.execute(db);
        await sql`create unique index events_feed on events (seq)`.execute(db);
      }
      await sql`insert into event_sequence (id, last) values (1, coalesce((select max(seq) from events), 0))`.execute(
        db,
      );
    },
    async down(db: UntypedDb) {
      await db.schema.dropIndex('events_feed').ifExists().execute();
      await db.schema.dropIndex('events_unstamped').ifExists().execute();
      await sql`drop table if exists event_sequence`.execute(db);
      if (engine === 'postgres') await sql`alter table events drop column inserted`.execute(db);
      await db.schema.alterTable('events').dropColumn('seq').execute();
      await db.schema.alterTable('events').dropColumn('ean').execute();
    },
  };
}
