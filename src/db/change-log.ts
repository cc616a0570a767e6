/**
 * The trigger-written change logs (offer_changes, migration 0003; school_changes, migration 0010) and
 * how the in-process views that follow them (offers/read-model.ts, lml/school-directory.ts) read them:
 * the SQL, a reader's position, and the rules they share.
 *
 * Late commits. SQLite serialises writers, so entries become visible in id order and the newest id
 * read is a reader's whole position. PostgreSQL draws ids (a sequence) before commit: a reader can see
 * id 8 while id 7 is still in an open transaction. So on PostgreSQL a position also holds the ids below
 * its newest that were missing when it read (gaps: an open transaction's, or a rolled-back one's,
 * which never appear), and every read asks for them by id until they appear or the late-commit window
 * has passed. Re-reading every entry of the window at every read would cost rows in proportion to the
 * write rate on every call, and make the offers read model forget every EAN changed in the window again
 * at every sync (docs/performance.md#decisions).
 */
import { sql } from 'kysely';
import type { Dialect, Executor } from './database.js';

/** A missing id is asked for this long after it was first missed (a commit this late is still seen). */
export const LATE_COMMIT_WINDOW_MS = 30_000;
/** Change-log rows are kept this long; a node that could not read the log for half of it starts afresh. */
export const CHANGES_KEPT_MS = 10 * 60_000;
/** A node prunes the log at most this often. */
export const PRUNE_EVERY_MS = 60_000;

/**
 * A reader that has not read the log for half the time entries are kept may have missed pruned ones:
 * it starts afresh instead of reading on.
 */
export const fellBehind = (lastRead: number, now: number): boolean => now - lastRead > CHANGES_KEPT_MS / 2;
/**
 * At most this many missing ids are followed; a reader with more (a large import rolled back, or
 * several large imports committing out of order) starts afresh instead. A fresh position looks this
 * far back for ids still missing.
 */
export const MAX_MISSING = 1000;

/**
 * A key meaning "every key changed": a writer whose one transaction drew more ids than a reader
 * follows (a bulk import on PostgreSQL) writes it last, just before it commits. A reader that started
 * afresh meanwhile no longer follows that transaction's earlier ids, but still follows this one, and
 * forgets everything when it reads it.
 */
export const EVERY_KEY = '*';

/** Where PostgreSQL tells the offers read models that `offer_changes` grew (migration 0003's NOTIFY). */
export const OFFER_CHANGES_CHANNEL = 'shelfmark_offers';

export type ChangeLogName = 'offer_changes' | 'school_changes';

/** Each log's key column: what changed. */
const KEY_COLUMN: Record<ChangeLogName, 'ean' | 'identifier'> = {
  offer_changes: 'ean',
  school_changes: 'identifier',
};

export interface Change {
  id: number;
  /** The changed row's key (an EAN, a school identifier). */
  key: string;
}

/** Where a reader stands in a change log. */
export class LogPosition {
  /** Ids below `newest` missing when last read (PostgreSQL only), each with when it was first missed. */
  private readonly gaps = new Map<number, number>();

  private constructor(
    private newest: number,
    private readonly followsGaps: boolean,
  ) {}

  /**
   * A position from the log's newest ids as read now (ascending, the newest last): every id between the
   * oldest of them and the newest that is not among them is missing.
   */
  static fromVisible(visible: readonly number[], dialect: Dialect, now: number): LogPosition {
    const position = new LogPosition(visible.at(0) ?? 0, !dialect.serialWriters);
    position.advance(visible, now);
    return position;
  }

  /** Read entries with a larger id than this... */
  get after(): number {
    return this.newest;
  }

  /** ...and these ids. */
  get missing(): readonly number[] {
    return [...this.gaps.keys()];
  }

  /**
   * Moves past the entries just read (ascending ids). False when more ids are missing than a reader
   * follows: it must start afresh.
   */
  advance(ids: readonly number[], now: number): boolean {
    for (const [id, missedAt] of this.gaps) if (now - missedAt > LATE_COMMIT_WINDOW_MS) this.gaps.delete(id);
    for (const id of ids) {
      if (id <= this.newest) {
        this.gaps.delete(id);
        continue;
      }
      if (this.followsGaps) {
        if (id - this.newest - 1 + this.gaps.size > MAX_MISSING) return false;
        for (let missed = this.newest + 1; missed < id; missed++) this.gaps.set(missed, now);
      }
      this.newest = id;
    }
    return true;
  }
}

/** The SQL of one change log. Written by triggers only; read and pruned here. */
export class ChangeLogStore {
  private readonly key: 'ean' | 'identifier';
  private lastPrune = 0;

  constructor(
    private readonly db: Executor,
    private readonly log: ChangeLogName,
  ) {
    this.key = KEY_COLUMN[log];
  }

  /**
   * The position of a reader that has read nothing yet: after the newest entry, following the ids
   * missing among the last MAX_MISSING (PostgreSQL), so a transaction open now is still seen when it
   * commits. Pruning always keeps the newest entry (prune()), so an open transaction's id is never
   * below every entry left.
   */
  async start(dialect: Dialect, now: number): Promise<LogPosition> {
    const table = sql.table(this.log);
    const { rows } = await sql<{ id: number }>`
      select id from ${table} where id >= (select max(id) from ${table}) - ${MAX_MISSING} order by id`.execute(this.db);
    return LogPosition.fromVisible(
      rows.map((row) => Number(row.id)),
      dialect,
      now,
    );
  }

  /** The entries a reader at `position` has not seen, by id. */
  async read(position: LogPosition): Promise<Change[]> {
    const missing = position.missing;
    const { rows } = await sql<{ id: number; key: string }>`
      select id, ${sql.ref(this.key)} as key from ${sql.table(this.log)}
      where id > ${position.after}${missing.length === 0 ? sql`` : sql` or id in (${sql.join(missing)})`}
      order by id`.execute(this.db);
    return rows.map((row) => ({ id: Number(row.id), key: row.key }));
  }

  /** Drops the entries that no node still needs (kept CHANGES_KEPT_MS), at most once per PRUNE_EVERY_MS per store. */
  async pruneIfDue(now: number): Promise<void> {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.prune(now - CHANGES_KEPT_MS);
  }

  /**
   * Drops entries recorded before `recordedBefore`, except the newest: a fresh reader's position
   * (start()) needs one entry to count back from.
   */
  async prune(recordedBefore: number): Promise<void> {
    const table = sql.table(this.log);
    await sql`delete from ${table} where changed_at < ${recordedBefore} and id < (select max(id) from ${table})`.execute(
      this.db,
    );
  }
}
