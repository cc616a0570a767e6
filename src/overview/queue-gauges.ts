/**
 * The delivery-queue gauges of /metrics, read from the database at scrape time (never on the request
 * path), and never by walking the history: the queue (pending deliveries and the oldest one's age)
 * through its partial indexes, and the finished outcomes of the last 24 hours from the hourly
 * counters the completions keep (delivery_stats), the same figures as the console's overview.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { DELIVERY_STATUSES } from '../delivery/model.js';
import { HOUR_MS, hourStart } from '../delivery/stats.js';
import { type Metrics, sharedWhileRunning } from '../observability/metrics.js';
import { OverviewStore } from './store.js';

export function installQueueGauges(metrics: Metrics, db: Db, clock: Clock): void {
  const store = new OverviewStore(db);
  // Both sources below report the queue: one read of it serves a scrape.
  const readQueue = sharedWhileRunning(() => store.queue());
  metrics.deliveryCounts = async () => {
    const firstHour = hourStart(clock.now()) - 23 * HOUR_MS;
    const [queue, hours] = await Promise.all([readQueue(), store.hours(firstHour)]);
    const counts = new Map<string, number>(DELIVERY_STATUSES.map((status) => [status, 0]));
    counts.set('pending', queue.pending);
    for (const hour of hours) {
      counts.set('succeeded', (counts.get('succeeded') ?? 0) + hour.succeeded);
      counts.set('failed', (counts.get('failed') ?? 0) + hour.failed);
    }
    return [...counts];
  };

  metrics.queueState = async () => {
    const queue = await readQueue();
    return { pending: queue.pending, oldestCreatedAt: queue.oldestCreatedAt, now: clock.now() };
  };
}
