/**
 * The operator console's overview: what exists, how deep the queue is, how deliveries went in the
 * last 24 hours (failures, p95 commit-to-delivery latency, attempts per hour by outcome), and whether
 * any delivery worker is alive to send what waits.
 */
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Overview, SubscriptionHealth } from './schemas.js';
import { OverviewStore } from './store.js';

const HOUR = 3_600_000;
/**
 * The p95 is taken over at most this many of the newest successes of the last 24 hours, bounding the
 * work per request: the 950th of 1,000 is as good an estimate for a tile as the 4,750th of 5,000, and
 * the walk (an index entry and a row each) is a fifth as long (docs/performance.md#decisions).
 */
const LATENCY_SAMPLE = 1000;

/** A worker counts as alive when its heartbeat is at most three intervals old: one late beat is no alarm. */
export const workerAliveWithinSeconds = (config: Pick<Config, 'workerHeartbeatSeconds'>): number =>
  3 * config.workerHeartbeatSeconds;

export class OverviewService {
  private readonly store: OverviewStore;

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'workerHeartbeatSeconds'>,
  ) {
    this.store = new OverviewStore(db);
  }

  async get(): Promise<Overview> {
    const now = this.clock.now();
    const since = now - 24 * HOUR;
    const currentHour = now - (now % HOUR);
    const firstHour = currentHour - 23 * HOUR;
    const aliveWithinSeconds = workerAliveWithinSeconds(this.config);
    const [counts, hours, p95, workers] = await Promise.all([
      this.store.counts(),
      this.store.hours(firstHour),
      this.store.p95Latency(since, LATENCY_SAMPLE),
      this.store.workers(now - aliveWithinSeconds * 1000),
    ]);
    const buckets = Array.from({ length: 24 }, (_, i) => ({
      hour: isoTime(firstHour + i * HOUR),
      succeeded: 0,
      failed: 0,
    }));
    let failedAttempts24h = 0;
    let failedDeliveries24h = 0;
    for (const row of hours) {
      const bucket = buckets[Math.round((row.hour - firstHour) / HOUR)];
      if (bucket === undefined) continue;
      bucket.succeeded += row.attemptsOk;
      bucket.failed += row.attemptsFailed;
      failedAttempts24h += row.attemptsFailed;
      failedDeliveries24h += row.failed;
    }
    return {
      ...counts,
      failedAttempts24h,
      failedDeliveries24h,
      failedLast24h: failedDeliveries24h,
      p95DeliveryLatencyMs: p95,
      attemptsPerHour: buckets,
      workers: {
        alive: workers.alive,
        lastSeenAt: workers.lastSeenAt === null ? null : isoTime(workers.lastSeenAt),
        aliveWithinSeconds,
        missing: workers.alive === 0 && counts.queueDepth > 0,
      },
      generatedAt: isoTime(now),
    };
  }

  async health(): Promise<SubscriptionHealth[]> {
    return (await this.store.health()).map((row) => ({
      subscriptionId: row.subscriptionId,
      lastSuccessAt: row.lastSuccessAt === null ? null : isoTime(row.lastSuccessAt),
      consecutiveFailedAttempts: row.consecutiveFailedAttempts,
      consecutiveFailures: row.consecutiveFailedAttempts,
      failingSince: row.failingSince === null ? null : isoTime(row.failingSince),
    }));
  }
}
