/**
 * Every school's identifier, name and type, kept in memory for the first level of the structure tree,
 * which answers every school. Reading them all from the database on each call made a large answer's
 * rows arrive over several socket reads on PostgreSQL, so they outlived young-generation collections
 * and the old space grew in the soak (docs/performance.md). The directory loads once, then catches up
 * from the trigger-written `school_changes` log (migration 0010) before every answer, re-reading only
 * the schools that changed, so a write committed before a call is in that call's answer, whichever
 * node wrote it.
 */
import { CHANGES_KEPT_MS, lateCommitsSince, PRUNE_EVERY_MS } from '../db/change-log.js';
import type { Engine } from '../db/database.js';
import type { DirectoryEntry, SchoolStore } from './school-store.js';

/** More changed schools than this since the last answer (a bulk import): load them all instead. */
const RELOAD_ABOVE = 1000;

/**
 * Drops change-log entries no node needs any more, at most once a minute per caller. The directory
 * prunes as it reads; the school writes prune too, so the log stays small on nodes that never answer
 * the structure tree.
 */
export class SchoolChangesPruner {
  private last = 0;

  constructor(private readonly store: SchoolStore) {}

  async pruneIfDue(now: number): Promise<void> {
    if (now - this.last < PRUNE_EVERY_MS) return;
    this.last = now;
    await this.store.pruneChanges(now - CHANGES_KEPT_MS);
  }
}

export class SchoolDirectory {
  private entries = new Map<string, DirectoryEntry>();
  /** The entries in answer order, until the next change. */
  private sorted: DirectoryEntry[] | undefined;
  /** The newest change applied; undefined until the first load. */
  private cursor: number | undefined;
  /** Changes within the late-commit window already applied (PostgreSQL), by id: when recorded. */
  private readonly applied = new Map<number, number>();
  private lastRead = 0;
  private readonly pruner: SchoolChangesPruner;
  /** Catch-ups started and finished: a caller waits for one that started after it arrived. */
  private started = 0;
  private finished = 0;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly store: SchoolStore,
    private readonly engine: Engine,
    private readonly compare: (a: DirectoryEntry, b: DirectoryEntry) => number,
    private readonly now: () => number = Date.now,
  ) {
    this.pruner = new SchoolChangesPruner(store);
  }

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
    if (this.cursor === undefined || now - this.lastRead > CHANGES_KEPT_MS / 2) return this.load(now);
    // Entries this recent are looked at again below the cursor (late commits), skipped once applied.
    const recentSince = lateCommitsSince(this.engine, now);
    const cursor = this.cursor;
    const changes = (await this.store.changesSince(cursor, recentSince)).filter(
      (change) => change.id > cursor || !this.applied.has(change.id),
    );
    if (changes.length > 0) {
      const identifiers = [...new Set(changes.map((change) => change.identifier))];
      if (identifiers.length > RELOAD_ABOVE) return this.load(now);
      const rows = new Map((await this.store.directoryEntries(identifiers)).map((row) => [row.identifier, row]));
      for (const identifier of identifiers) {
        const row = rows.get(identifier);
        if (row === undefined) this.entries.delete(identifier);
        else this.entries.set(identifier, row);
      }
      this.sorted = undefined;
    }
    for (const change of changes) {
      this.cursor = Math.max(this.cursor, change.id);
      if (this.engine === 'postgres') this.applied.set(change.id, change.changedAt);
    }
    for (const [id, recordedAt] of this.applied) if (recordedAt < recentSince) this.applied.delete(id);
    this.lastRead = now;
    // Best effort: the answer is ready, and the next catch-up prunes again.
    await this.pruner.pruneIfDue(now).catch(() => undefined);
  }

  private async load(now: number): Promise<void> {
    // The log first, then the rows: every change visible now is in the rows read next. A change that
    // commits later is applied at a later catch-up: by its id, or (PostgreSQL, an id below the cursor)
    // through the late-commit window, where the changes seen here count as applied.
    const cursor = await this.store.lastChangeId();
    this.applied.clear();
    if (this.engine === 'postgres')
      for (const change of await this.store.changesSince(Number.MAX_SAFE_INTEGER, lateCommitsSince(this.engine, now)))
        this.applied.set(change.id, change.changedAt);
    const rows = await this.store.directory();
    this.entries = new Map(rows.map((row) => [row.identifier, row]));
    this.sorted = undefined;
    this.cursor = cursor;
    this.lastRead = now;
  }
}
