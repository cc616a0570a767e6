/**
 * A worker process announces itself: one `worker_heartbeats` row, written when the process starts its
 * first delivery worker and refreshed every WORKER_HEARTBEAT_SECONDS (time from the injected clock), so
 * every node's overview and /metrics can tell when deliveries wait with no worker alive. A clean stop
 * stamps `stopped_at`, so the worker is counted gone at once rather than after the threshold.
 * Rows not seen for a week are pruned by the workers themselves, at start and hourly.
 */
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { ids } from '../ids.js';

const HOUR = 3_600_000;
/** A heartbeat unseen this long names a process nobody needs to hear of again. */
export const HEARTBEAT_KEPT_MS = 7 * 24 * HOUR;

export type WorkerRole = 'worker' | 'all';

export interface HeartbeatDeps {
  db: Db;
  clock: Clock;
  intervalMs: number;
  role: WorkerRole;
  onError: (error: unknown, what: string) => void;
}

export class WorkerHeartbeat {
  readonly id = ids.worker();
  private timer: NodeJS.Timeout | undefined;
  private prunedAt = Number.NEGATIVE_INFINITY;
  private startedAt = 0;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HeartbeatDeps) {}

  /** Writes the first beat; `started` settles once it is recorded. */
  start(): Promise<void> {
    this.startedAt = this.deps.clock.now();
    this.timer = setInterval(() => void this.beat(), this.deps.intervalMs);
    this.timer.unref();
    return this.beat();
  }

  /** Records "seen now" (the timer calls it every interval; tests call it after moving the clock). */
  beat(): Promise<void> {
    this.writing = this.writing
      .then(() => this.write())
      .catch((error: unknown) => {
        this.deps.onError(error, 'recording the worker heartbeat failed');
      });
    return this.writing;
  }

  /** Stops beating and marks the row stopped, so the overview counts this worker gone at once. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.writing;
    const now = this.deps.clock.now();
    await this.deps.db.kysely
      .updateTable('worker_heartbeats')
      .set({ last_seen_at: now, stopped_at: now })
      .where('id', '=', this.id)
      .execute()
      .catch((error: unknown) => this.deps.onError(error, 'recording the worker stop failed'));
  }

  private async write(): Promise<void> {
    const { db, clock, role } = this.deps;
    const now = clock.now();
    await db.kysely
      .insertInto('worker_heartbeats')
      .values({
        id: this.id,
        host: hostname(),
        pid: process.pid,
        role,
        started_at: this.startedAt,
        last_seen_at: now,
        stopped_at: null,
      })
      .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen_at: now }))
      .execute();
    if (now - this.prunedAt >= HOUR) {
      this.prunedAt = now;
      await db.kysely
        .deleteFrom('worker_heartbeats')
        .where('last_seen_at', '<', now - HEARTBEAT_KEPT_MS)
        .execute();
    }
  }
}
