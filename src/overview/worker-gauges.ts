/**
 * The /metrics families the alert rules watch beside the queue's (docs/operating/metrics.md): delivery
 * workers alive and the newest heartbeat of any, and subscriptions failing. Read from the database at
 * scrape time, so every node (an API-only one too) reports the shared truth; a read that fails leaves
 * the last value rather than failing the scrape.
 */
import { Gauge } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { type Metrics, sharedWhileRunning } from '../observability/metrics.js';
import { workerAliveWithinSeconds } from './service.js';
import { OverviewStore } from './store.js';

export function installWorkerGauges(
  metrics: Metrics,
  db: Db,
  clock: Clock,
  config: Pick<Config, 'workerHeartbeatSeconds'>,
): void {
  if (metrics.registry.getSingleMetric('shelfmark_workers_alive') !== undefined) return;
  const store = new OverviewStore(db);
  const registers = [metrics.registry];
  // Both worker gauges come from one read per scrape.
  const readWorkers = sharedWhileRunning(() =>
    store.workers(clock.now() - workerAliveWithinSeconds(config) * 1000).catch(() => undefined),
  );
  new Gauge({
    name: 'shelfmark_workers_alive',
    help: 'Delivery worker processes (role worker or all) whose heartbeat was seen within three WORKER_HEARTBEAT_SECONDS',
    registers,
    async collect() {
      const workers = await readWorkers();
      if (workers !== undefined) this.set(workers.alive);
    },
  });
  new Gauge({
    name: 'shelfmark_worker_last_seen_timestamp_seconds',
    help: 'The newest heartbeat of any delivery worker process, Unix time; 0 when none is on record',
    registers,
    async collect() {
      const workers = await readWorkers();
      if (workers !== undefined) this.set((workers.lastSeenAt ?? 0) / 1000);
    },
  });
  new Gauge({
    name: 'shelfmark_subscriptions_failing',
    help: 'Active subscriptions whose every attempt has failed since their last success (failingSince set)',
    registers,
    async collect() {
      const failing = await store.failingSubscriptions().catch(() => undefined);
      if (failing !== undefined) this.set(failing);
    },
  });
}
