/**
 * What a prune removes, as rules over the configuration and the clock: one bound per growing table
 * (docs/operating/retention.md lists them). A cutoff is the instant before which a row may go;
 * undefined keeps the rows forever (a setting of 0).
 */

import type { Config } from '../config.js';
import { CHANGES_KEPT_MS } from '../db/change-log.js';

/** The settings retention reads: how long each table is kept, and how pruning is paced. */
export type RetentionConfig = Pick<
  Config,
  | 'deliveryRetentionDays'
  | 'failedDeliveryRetentionDays'
  | 'eventRetentionDays'
  | 'responseBodyRetentionDays'
  | 'deliveryStatsRetentionDays'
  | 'auditRetentionDays'
  | 'pruneBatchSize'
  | 'pruneIntervalSeconds'
  | 'prunePauseMs'
  | 'sessionIdleSeconds'
>;

import { DELIVERY_STATUSES } from '../delivery/model.js';

export const DAY_MS = 86_400_000;

/** Every terminal status but success: the deliveries kept FAILED_DELIVERY_RETENTION_DAYS. */
export const FAILED_STATUSES: readonly string[] = DELIVERY_STATUSES.filter(
  (status) => status !== 'pending' && status !== 'succeeded',
);

/**
 * What a prune acts on, in the order it runs: attempts go with their deliveries, then the events no
 * delivery refers to any more; the audit log last, so the record of the prune follows what it removed.
 * `response_bodies` are not rows but the receivers' answers on attempts, cleared in place.
 */
export const PRUNE_TARGETS = [
  'deliveries',
  'delivery_attempts',
  'events',
  'response_bodies',
  'delivery_stats',
  'idempotency_keys',
  'web_sessions',
  'portal_links',
  'offer_changes',
  'school_changes',
  'audit_records',
] as const;
export type PruneTarget = (typeof PRUNE_TARGETS)[number];

/** The tables the storage view reports: every table a retention bound applies to. */
export const BOUNDED_TABLES = PRUNE_TARGETS.filter(
  (target): target is Exclude<PruneTarget, 'response_bodies'> => target !== 'response_bodies',
);
export type BoundedTable = (typeof BOUNDED_TABLES)[number];

/** The retention settings in force, in days (0 = forever). */
export interface RetentionSettings {
  deliveryDays: number;
  failedDeliveryDays: number;
  eventDays: number;
  responseBodyDays: number;
  statsDays: number;
  /** AUDIT_RETENTION_DAYS: the audit log, pruned from the start of its chain (src/audit/retention.ts). */
  auditDays: number;
}

export function retentionSettings(config: RetentionConfig): RetentionSettings {
  const deliveryDays = config.deliveryRetentionDays;
  const failedDeliveryDays = config.failedDeliveryRetentionDays;
  // An event outlives its deliveries: by default as long as the longest of them is kept (forever if one is).
  const eventDays =
    config.eventRetentionDays ??
    (deliveryDays === 0 || failedDeliveryDays === 0 ? 0 : Math.max(deliveryDays, failedDeliveryDays));
  return {
    deliveryDays,
    failedDeliveryDays,
    eventDays,
    responseBodyDays: config.responseBodyRetentionDays,
    statsDays: config.deliveryStatsRetentionDays,
    auditDays: config.auditRetentionDays,
  };
}

/** Instants (epoch ms) before which rows go; undefined = kept forever. */
export interface Cutoffs {
  /** Succeeded deliveries that completed before this. */
  succeeded: number | undefined;
  /** Failed (abandoned) deliveries that completed before this. */
  failed: number | undefined;
  /** Events created before this, once no delivery refers to them. */
  events: number | undefined;
  /** Attempts started before this lose their response body. */
  responseBodies: number | undefined;
  /** Hourly counters of hours that started before this. */
  stats: number | undefined;
  /** Idempotency keys that expired at or before this (24 h after their first request). */
  idempotencyExpired: number;
  /** Web sessions last seen before this (SESSION_IDLE_SECONDS ago); they can no longer be used. */
  sessionsIdle: number;
  /** Portal links that expired before this, or were used. */
  linksExpired: number;
  /** Change-log entries recorded before this, the newest always kept (src/db/change-log.ts). */
  changes: number;
  /** Audit records made before this, taken only from the start of the chain. */
  audit: number | undefined;
}

const daysBefore = (now: number, days: number): number | undefined => (days === 0 ? undefined : now - days * DAY_MS);

export function cutoffs(settings: RetentionSettings, config: RetentionConfig, now: number): Cutoffs {
  return {
    succeeded: daysBefore(now, settings.deliveryDays),
    failed: daysBefore(now, settings.failedDeliveryDays),
    events: daysBefore(now, settings.eventDays),
    responseBodies: daysBefore(now, settings.responseBodyDays),
    stats: daysBefore(now, settings.statsDays),
    idempotencyExpired: now,
    sessionsIdle: now - config.sessionIdleSeconds * 1000,
    linksExpired: now,
    // The readers' own rule (they prune the same way as they read): a reader that fell half this far
    // behind starts afresh, so nothing it still needs is older than this.
    changes: now - CHANGES_KEPT_MS,
    audit: daysBefore(now, settings.auditDays),
  };
}

/** Each target's bound in words, for the storage view, the dry run and the docs. */
export function bounds(settings: RetentionSettings, config: RetentionConfig): Record<PruneTarget, string> {
  const older = (days: number, what: string): string =>
    days === 0 ? `${what}: kept forever` : `${what} older than ${days} days`;
  const changes = `entries older than ${CHANGES_KEPT_MS / 60_000} minutes, the newest kept`;
  return {
    deliveries: `${older(settings.deliveryDays, 'succeeded')}, ${older(settings.failedDeliveryDays, 'failed')} (since completion); pending never`,
    delivery_attempts: 'with their delivery',
    events: `${older(settings.eventDays, 'events')}, once no kept delivery refers to them`,
    response_bodies: older(settings.responseBodyDays, 'answers on attempts'),
    delivery_stats: older(settings.statsDays, 'hourly counters'),
    idempotency_keys: 'expired (24 hours after the first request)',
    web_sessions: `idle for ${config.sessionIdleSeconds} s (SESSION_IDLE_SECONDS)`,
    portal_links: 'used, or expired (15 minutes)',
    offer_changes: changes,
    school_changes: changes,
    audit_records: older(settings.auditDays, 'audit records'),
  };
}

/** The pause after a batch is at least this many times the batch's own duration, on both engines. */
export const PACE = 100;

/**
 * The pause (ms) after a batch that held its transaction `heldMs`: PRUNE_PAUSE_MS, and at least PACE
 * times the batch; `0` = none at all (a maintenance window). On SQLite every write transaction holds the
 * database's one write lock, and a writer that meets it sleeps in SQLite's busy-handler steps; on
 * PostgreSQL the prune's deletes take CPU and WAL from the deliveries beside it. Paced at 100 times, the
 * prune is busy about 1 % of the time on either engine, whatever the host's speed
 * (docs/decisions/0003-paced-prune.md).
 */
export function pauseAfter(pauseMs: number, heldMs: number): number {
  if (pauseMs === 0) return 0;
  return Math.max(pauseMs, Math.round(heldMs * PACE));
}
