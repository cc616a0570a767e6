/**
 * Retention: pruning now (one node at a time, in short batches), what a prune would remove (dry run),
 * the record of the last prune, and SQLite's freed space. The SQL is in store.ts, the batches in
 * run.ts, the rules in policy.ts.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { type Initiator, SYSTEM } from '../audit/initiator.js';
import { pruneAuditRecords, recordPrune } from '../audit/retention.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { getSetting, putSetting } from '../db/settings.js';
import { type PruneLock, pruneLock } from './lock.js';
import { PACED_DELETE_CHUNK } from './paced-batches.js';
import type { RetentionConfig } from './policy.js';
import {
  type Cutoffs,
  cutoffs,
  DAY_MS,
  FAILED_STATUSES,
  PRUNE_TARGETS,
  type PruneTarget,
  pauseAfter,
  type RetentionSettings,
  retentionSettings,
} from './policy.js';
import { BODIES_SETTING, type PruneItem, PruneRun } from './run.js';
import { type SpaceReport, SqliteSpace } from './sqlite-space.js';
import { type PrunableClass, prunableDelivery, RetentionStore } from './store.js';

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

const noRows = (): Record<PruneTarget, number> =>
  Object.fromEntries(PRUNE_TARGETS.map((target) => [target, 0])) as Record<PruneTarget, number>;

export class RetentionService {
  readonly settings: RetentionSettings;
  readonly store: RetentionStore;
  private readonly lock: PruneLock;
  private readonly space: SqliteSpace | undefined;

  constructor(private readonly deps: RetentionDeps) {
    this.settings = retentionSettings(deps.config);
    this.store = new RetentionStore(deps.db.engine);
    this.lock = deps.lock ?? pruneLock(deps.db, deps.clock);
    this.space = deps.db.engine === 'sqlite' ? new SqliteSpace(deps.db) : undefined;
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
    };
  }

  cutoffs(now: number = this.deps.clock.now()): Cutoffs {
    return cutoffs(this.settings, this.deps.config, now);
  }

  /**
   * Prunes now, unless another node or process is pruning ('busy'). `stopped` ends it early between
   * batches (shutdown); what was pruned so far is recorded.
   */
  async prune(options: { stopped?: () => boolean; by?: Initiator } = {}): Promise<PruneOutcome> {
    const { config, clock } = this.deps;
    const pause =
      this.deps.pause ??
      (async (heldMs: number) => {
        const ms = pauseAfter(config.prunePauseMs, heldMs);
        if (ms === 0) return;
        // SQLite: the batch's deletes are checkpointed here, by the prune, in its own pause; left to the
        // WAL's automatic checkpoint they would be copied back by whichever commit crossed the threshold
        // next, most often the delivery path's. PASSIVE: it never waits for, nor blocks, a writer.
        if (this.deps.db.engine === 'sqlite') await sql`pragma wal_checkpoint(passive)`.execute(this.deps.db.kysely);
        await sleep(ms);
      });
    const stopped = options.stopped ?? (() => false);
    const outcome = await this.lock.withLock(async (held) => {
      const startedAt = clock.now();
      const run = new PruneRun(this.store, held, this.cutoffs(startedAt), this.reasons(), {
        batchSize: config.pruneBatchSize,
        // Short transactions only while paced; a maintenance window (no pause) deletes whole batches.
        deleteChunk: config.prunePauseMs === 0 ? config.pruneBatchSize : PACED_DELETE_CHUNK,
        pause,
        stopped,
      });
      await run.run();
      const rows = { ...noRows(), ...run.totals() };
      // The audit log's own prefix, then the record of this prune by the system (src/audit/retention.ts).
      const auditDays = config.auditRetentionDays;
      const auditRecords = await pruneAuditRecords(held.db, {
        cutoff: auditDays === 0 ? undefined : startedAt - auditDays * DAY_MS,
        batchSize: config.pruneBatchSize,
        stopped,
      });
      await recordPrune(held.db, clock.now(), { ...rows, audit_records: auditRecords }, options.by ?? SYSTEM);
      const record: LastPrune = { startedAt, finishedAt: clock.now(), complete: run.complete, rows };
      await putSetting(held.db, LAST_PRUNE_SETTING, JSON.stringify(record));
      this.deps.onPruned?.(rows);
      const emptied = (['deliveries', 'delivery_attempts', 'events'] as const).filter((table) => rows[table] > 0);
      await this.store.analyze(held.db, emptied);
      const space = run.complete && this.space !== undefined ? await this.space.release(pause, stopped) : undefined;
      return { status: 'pruned' as const, record, items: run.items, space };
    });
    return outcome ?? { status: 'busy' };
  }

  /** What a prune would remove now, counted with the same conditions; changes nothing and takes no lock. */
  async dryRun(): Promise<PruneItem[]> {
    const k = this.deps.db.kysely;
    const cut = this.cutoffs();
    const reasons = this.reasons();
    const items: PruneItem[] = [];
    const add = (table: PruneTarget, key: string, rows: number): void => {
      items.push({ table, reason: reasons[key] ?? key, rows });
    };
    const classes: PrunableClass[] = [];
    for (const [key, statuses, cutoff] of [
      ['succeeded', ['succeeded'], cut.succeeded],
      ...FAILED_STATUSES.map((status) => [status, [status], cut.failed] as const),
    ] as const) {
      const counted =
        cutoff === undefined ? { deliveries: 0, attempts: 0 } : await this.store.countFinished(k, statuses, cutoff);
      if (cutoff !== undefined) classes.push({ statuses, cutoff });
      add('deliveries', key, counted.deliveries);
      add('delivery_attempts', `${key}:attempts`, counted.attempts);
    }
    const events = cut.events;
    add(
      'events',
      'events',
      events === undefined ? 0 : await this.store.countEvents(k, events, prunableDelivery('d', classes)),
    );
    const bodies = cut.responseBodies;
    const after = (await getSetting(k, BODIES_SETTING)) ?? '';
    add(
      'response_bodies',
      'response_bodies',
      bodies === undefined ? 0 : await this.store.countBodies(k, after, bodies, prunableDelivery('d', classes)),
    );
    const { stats, idempotencyExpired, sessionsIdle, linksExpired, changes } = cut;
    const store = this.store;
    add(
      'delivery_stats',
      'delivery_stats',
      stats === undefined ? 0 : await store.countBelow(k, 'delivery_stats', 'hour', stats),
    );
    add(
      'idempotency_keys',
      'idempotency_keys',
      await store.countBelow(k, 'idempotency_keys', 'expires_at', idempotencyExpired, true),
    );
    add('web_sessions', 'web_sessions', await store.countBelow(k, 'web_sessions', 'last_seen_at', sessionsIdle));
    add('portal_links', 'portal_links', await store.countLinks(k, linksExpired));
    for (const log of ['offer_changes', 'school_changes'] as const)
      add(log, log, await store.countChanges(k, log, changes));
    return items;
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
