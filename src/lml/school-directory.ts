/**
 * Every school's identifier, name and type, kept in memory for the first level of the structure tree,
 * which answers every school. Read from the database on each call, a large answer's rows arrive over
 * several socket reads on PostgreSQL and outlive young-generation collections, so the old space grows
 * under load (docs/performance.md#decisions). The directory loads once, then catches up
 * from the trigger-written `school_changes` log (migration 0010) before every answer, re-reading only
 * the schools that changed, so a write committed before a call is in that call's answer, whichever
 * node wrote it.
 */
import { type ChangeLogStore, fellBehind, type LogPosition } from '../db/change-log.js';
import type { Dialect } from '../db/database.js';
import type { DirectoryEntry, SchoolStore } from './school-store.js';

/** More changed schools than this since the last answer (a bulk import): load them all instead. */
const RELOAD_ABOVE = 1000;

export class SchoolDirectory {
  private entries = new Map<string, DirectoryEntry>();
  /** The entries in answer order, until the next change. */
  private sorted: DirectoryEntry[] | undefined;
  /** Where the directory stands in the change log; undefined until the first load. */
  private position: LogPosition | undefined;
  private lastRead = 0;
  /** Catch-ups started and finished: a caller waits for one that started after it arrived. */
  private started = 0;
  private finished = 0;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly store: SchoolStore,
    private readonly log: ChangeLogStore,
    private readonly dialect: Dialect,
    private readonly compare: (a: DirectoryEntry, b: DirectoryEntry) => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every school, sorted, as of a moment after this call began. */
  async schools(): Promise<readonly DirectoryEntry[]> {
    const wanted = this.started + 1;
    // Concurrent callers share one catch-up instead of each reading the log.
    while (this.finished < wanted) {
      if (this.reading === undefined) {
        const number = ++this.started;
        this.reading = this.catchUp().finally(() => {
          this.finished = number;
          this.reading = undefined;
        });
      }
      await this.reading;
    }
    this.sorted ??= [...this.entries.values()].sort(this.compare);
    return this.sorted;
  }

  private async catchUp(): Promise<void> {
    const now = this.now();
    const position = this.position;
    if (position === undefined || fellBehind(this.lastRead, now)) return this.load(now);
    const changes = await this.log.read(position);
    if (changes.length > 0) {
      const identifiers = [...new Set(changes.map((change) => change.key))];
      if (identifiers.length > RELOAD_ABOVE) return this.load(now);
      const rows = new Map((await this.store.directoryEntries(identifiers)).map((row) => [row.identifier, row]));
      for (const identifier of identifiers) {
        const row = rows.get(identifier);
        if (row === undefined) this.entries.delete(identifier);
        else this.entries.set(identifier, row);
      }
      this.sorted = undefined;
    }
    // Only once applied: a failed read of the rows leaves the position where it was, so they are read again.
    if (
      !position.advance(
        changes.map((change) => change.id),
        now,
      )
    )
      return this.load(now);
    this.lastRead = now;
    // Best effort: the answer is ready, and the next catch-up prunes again.
    await this.log.pruneIfDue(now).catch(() => undefined);
  }

  private async load(now: number): Promise<void> {
    // The log first, then the rows: every change visible now is in the rows read next, and one that
    // commits later comes after the position (or is among its missing ids) at a later catch-up.
    const position = await this.log.start(this.dialect, now);
    const rows = await this.store.directory();
    this.entries = new Map(rows.map((row) => [row.identifier, row]));
    this.sorted = undefined;
    this.position = position;
    this.lastRead = now;
  }
}
