/**
 * Retention: pruning now (one node at a time, in short batches), what a prune would remove (dry run),
 * the record of the last prune, and SQLite's freed space. The SQL is in store.ts, the batches in
 * run.ts, the rules in policy.ts.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { type Initiator, SYSTEM } from '../audit/initiator.js';
import { pruneRecord } from '../audit/retention.js';
import { NO_EVENTS, type UnitOfWork, unitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { getSetting, putSetting } from '../db/settings.js';
import { countPrunable } from './dry-run.js';
import { type PruneLock, pruneLock } from './lock.js';
import { PACED_DELETE_CHUNK } from './paced-batches.js';
import type { RetentionConfig } from './policy.js';
import {
  type Cutoffs,
  cutoffs,
  FAILED_STATUSES,
  type PruneTarget,
  pauseAfter,
  type RetentionSettings,
  retentionSettings,
} from './policy.js';
import { type PrunePacing, type PruneProgress, rowsByTarget } from './progress.js';
import { type PruneItem, PruneRun } from './run.js';
import { type SpaceReport, SqliteSpace } from './sqlite-space.js';
import { RetentionStore } from './store.js';

export const LAST_PRUNE_SETTING = 'retention.last_prune';

/** The shared record of the last prune, whichever node ran it. */
export interface LastPrune {
  startedAt: number;
  finishedAt: number;
  /** False when it ended early (shutdown); the next prune goes on. */
  complete: boolean;
  rows: Record<PruneTarget, number>;
}

export type PruneOutcome =
  | { status: 'pruned'; record: LastPrune; items: PruneItem[]; space: SpaceReport | undefined }
  | { status: 'busy' };

export interface RetentionDeps {
  db: Db;
  config: RetentionConfig;
  clock: Clock;
  /** Counts the rows each prune removed (the /metrics counter). */
  onPruned?: (rows: Record<PruneTarget, number>) => void;
  /** Waits between batches, given how long the last one took; pauseAfter() by default (tests pass their own). */
  pause?: (heldMs: number) => Promise<void>;
  /** The one-node lock; by engine by default (lock.ts). */
  lock?: PruneLock;
}

const noRows = (): Record<PruneTarget, number> => rowsByTarget([]);

export interface PruneOptions {
  /** Ends the prune between two batches (shutdown); what was pruned so far is recorded. */
  stopped?: () => boolean;
  by?: Initiator;
  /** Batches back to back, whatever PRUNE_PAUSE_MS says: a maintenance window (`shelfmark prune --unpaced`). */
  unpaced?: boolean;
  /**
   * Watches the prune: once the lock is held, what a dry run counts then (transactions 0), then between
   * two transactions. Costs the count, so only a prune someone watches has it.
   */
  onProgress?: (progress: PruneProgress) => void;
}

export class RetentionService {
  readonly settings: RetentionSettings;
  readonly store: RetentionStore;
  private readonly lock: PruneLock;
  private readonly space: SqliteSpace | undefined;
  /** The record of a prune is one change (it writes no events). */
  private readonly work: UnitOfWork;

  constructor(private readonly deps: RetentionDeps) {
    this.work = unitOfWork(deps.db, deps.clock, NO_EVENTS);
    this.settings = retentionSettings(deps.config);
    this.store = new RetentionStore(deps.db.dialect);
    this.lock = deps.lock ?? pruneLock(deps.db, deps.clock);
    this.space = deps.db.dialect.keepsFreePages ? new SqliteSpace(deps.db) : undefined;
  }

  /** The reason each target's rows go, in words, under the settings in force. */
  reasons(): Record<string, string> {
    const s = this.settings;
    const older = (days: number, setting: string, what: string): string =>
      days === 0 ? `kept forever (${setting}=0)` : `${what} more than ${days} days ago`;
    const changes = 'recorded more than 10 minutes ago (the newest kept)';
    return {
      succeeded: older(s.deliveryDays, 'DELIVERY_RETENTION_DAYS', 'succeeded, completed'),
      'succeeded:attempts': older(s.deliveryDays, 'DELIVERY_RETENTION_DAYS', 'of succeeded deliveries completed'),
      ...Object.fromEntries(
        FAILED_STATUSES.flatMap((status) => [
          [status, older(s.failedDeliveryDays, 'FAILED_DELIVERY_RETENTION_DAYS', `${status}, completed`)],
          [
            `${status}:attempts`,
            older(s.failedDeliveryDays, 'FAILED_DELIVERY_RETENTION_DAYS', `of ${status} deliveries completed`),
          ],
        ]),
      ),
      events: older(s.eventDays, 'EVENT_RETENTION_DAYS', 'no delivery left, created'),
      response_bodies: older(s.responseBodyDays, 'RESPONSE_BODY_RETENTION_DAYS', 'cleared on attempts started'),
      delivery_stats: older(s.statsDays, 'DELIVERY_STATS_RETENTION_DAYS', 'counters of hours'),
      idempotency_keys: 'expired (24 hours after the first request)',
      web_sessions: `idle for more than ${this.deps.config.sessionIdleSeconds} s`,
      portal_links: 'used or expired',
      offer_changes: changes,
      school_changes: changes,
      audit_records: older(s.auditDays, 'AUDIT_RETENTION_DAYS', 'made'),
    };
  }

  cutoffs(now: number = this.deps.clock.now()): Cutoffs {
    return cutoffs(this.settings, this.deps.config, now);
  }

  /** How a prune runs: paced by PRUNE_PAUSE_MS in short transactions, or back to back in whole batches. */
  pacing(unpaced = false): PrunePacing {
    const { pruneBatchSize, prunePauseMs } = this.deps.config;
    const paced = !unpaced && prunePauseMs > 0;
    // Short transactions only while paced; a maintenance window deletes whole batches.
    return {
      paced,
      pauseMs: paced ? prunePauseMs : 0,
      batchSize: pruneBatchSize,
      deleteChunk: paced ? Math.min(PACED_DELETE_CHUNK, pruneBatchSize) : pruneBatchSize,
    };
  }

  /** Unless another node or process is pruning ('busy'), prunes now. */
  async prune(options: PruneOptions = {}): Promise<PruneOutcome> {
    const { clock } = this.deps;
    const pacing = this.pacing(options.unpaced);
    const pause = this.pause(pacing);
    const stopped = options.stopped ?? (() => false);
    const watch = options.onProgress;
    const outcome = await this.lock.withLock(async (held) => {
      const startedAt = clock.now();
      const cut = this.cutoffs(startedAt);
      const expected =
        watch === undefined ? noRows() : rowsByTarget(await countPrunable(held.db, this.store, cut, this.reasons()));
      const run: PruneRun = new PruneRun(this.store, held, cut, this.reasons(), {
        batchSize: pacing.batchSize,
        deleteChunk: pacing.deleteChunk,
        pause,
        stopped,
        onProgress: () =>
          watch?.({ expected, done: { ...noRows(), ...run.totals() }, transactions: run.transactions, pacing }),
      });
      watch?.({ expected, done: noRows(), transactions: 0, pacing });
      await run.run();
      const rows = { ...noRows(), ...run.totals() };
      // The record of this prune by the system, or the operator (src/audit/retention.ts).
      await this.work.run(options.by ?? SYSTEM, async ({ trx, record }) => {
        const changes = await pruneRecord(trx, rows);
        if (changes !== undefined) record('retention.pruned', 'prune', changes);
      });
      const record: LastPrune = { startedAt, finishedAt: clock.now(), complete: run.complete, rows };
      await putSetting(held.db, LAST_PRUNE_SETTING, JSON.stringify(record));
      this.deps.onPruned?.(rows);
      const emptied = (['deliveries', 'delivery_attempts', 'events', 'audit_records'] as const).filter(
        (table) => rows[table] > 0,
      );
      await this.store.analyze(held.db, emptied);
      const space = run.complete && this.space !== undefined ? await this.space.release(pause, stopped) : undefined;
      return { status: 'pruned' as const, record, items: run.items, space };
    });
    return outcome ?? { status: 'busy' };
  }

  /** The pause between two transactions: the tests' own, or pauseAfter() of the pacing's PRUNE_PAUSE_MS. */
  private pause(pacing: PrunePacing): (heldMs: number) => Promise<void> {
    const { db } = this.deps;
    return (
      this.deps.pause ??
      (async (heldMs: number) => {
        const ms = pauseAfter(pacing.pauseMs, heldMs);
        if (ms === 0) return;
        // SQLite: the batch's deletes are checkpointed here, by the prune, in its own pause; left to the
        // WAL's automatic checkpoint they would be copied back by whichever commit crossed the threshold
        // next, most often the delivery path's. PASSIVE: it never waits for, nor blocks, a writer.
        await db.dialect.checkpoint(db.kysely, 'passive');
        await sleep(ms);
      })
    );
  }

  /** What a prune would remove now, counted with the same conditions (dry-run.ts); changes nothing and takes no lock. */
  async dryRun(): Promise<PruneItem[]> {
    return countPrunable(this.deps.db.kysely, this.store, this.cutoffs(), this.reasons());
  }

  /** The shared record of the last prune (settings), undefined before the first. */
  async lastPrune(): Promise<LastPrune | undefined> {
    const value = await getSetting(this.deps.db.kysely, LAST_PRUNE_SETTING);
    if (value === undefined) return undefined;
    const record = JSON.parse(value) as LastPrune;
    // A record written before a target existed lacks it: every target is reported.
    return { ...record, rows: { ...noRows(), ...record.rows } };
  }

  /**
   * SQLite: rewrites the file once with auto_vacuum=incremental (VACUUM), so later prunes return their
   * freed pages to the file system; undefined on PostgreSQL, whose autovacuum reuses the space.
   */
  async vacuum(): Promise<SpaceReport | undefined> {
    return this.space?.vacuum();
  }

  /** SQLite's auto_vacuum mode; undefined on PostgreSQL. */
  async autoVacuum(): Promise<'none' | 'full' | 'incremental' | undefined> {
    return this.space?.mode();
  }
}
