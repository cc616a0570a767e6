/**
 * Builds retention for the service container: the prune and its dry run, the storage view, the
 * metrics, and the pruner that the worker role starts (server.ts).
 */

import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Metrics } from '../observability/metrics.js';
import { installRetentionMetrics } from './metrics.js';
import type { PruneTarget, RetentionConfig } from './policy.js';
import { type PrunerOptions, type StartedPruner, startPruner } from './pruner.js';
import { RetentionService } from './service.js';
import { StorageService } from './storage.js';

export interface RetentionServices {
  retention: RetentionService;
  storage: StorageService;
  /** Starts the periodic pruner in this process (worker role); PRUNE_INTERVAL_SECONDS=0 starts none. */
  startPruner(options: Pick<PrunerOptions, 'logger' | 'firstDelayMs'>): StartedPruner;
}

export function createRetention(deps: {
  config: RetentionConfig;
  db: Db;
  clock: Clock;
  metrics: Metrics;
}): RetentionServices {
  const { config, db, clock, metrics } = deps;
  let count: ((rows: Record<PruneTarget, number>) => void) | undefined;
  const retention = new RetentionService({ db, config, clock, onPruned: (rows) => count?.(rows) });
  const storage = new StorageService(retention, { db, config, clock });
  count = installRetentionMetrics(metrics, {
    lastPruneAt: async () => (await retention.lastPrune())?.finishedAt,
    databaseBytes: async () => (await storage.store.size(db.kysely)).bytes,
  });
  return {
    retention,
    storage,
    startPruner: (options) =>
      startPruner(retention, clock, { ...options, intervalMs: config.pruneIntervalSeconds * 1000 }),
  };
}
