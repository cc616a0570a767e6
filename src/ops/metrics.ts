/**
 * Prometheus metrics, one registry per app instance (tests build many apps in one process).
 * Capabilities record into the named instruments here; /metrics renders the registry.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Histogram({
    name: 'shelfmark_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly deliveryAttempts = new Counter({
    name: 'shelfmark_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (success, or the error class)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly deliveryLatency = new Histogram({
    name: 'shelfmark_webhook_attempt_duration_seconds',
    help: 'Duration of webhook delivery attempts',
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [this.registry],
  });

  readonly deliveriesFailed = new Counter({
    name: 'shelfmark_webhook_deliveries_failed_total',
    help: 'Deliveries that exhausted their retry schedule',
    registers: [this.registry],
  });

  readonly logLinesDropped = new Counter({
    name: 'shelfmark_log_lines_dropped_total',
    help: 'Log lines dropped because stdout could not keep up (the log buffer is bounded)',
    registers: [this.registry],
  });

  readonly deliveriesInFlight = new Gauge({
    name: 'shelfmark_webhook_in_flight',
    help: 'Webhook requests in flight in this process',
    registers: [this.registry],
  });

  /**
   * Deliveries by status, read from the database at scrape time so every node reports the shared
   * truth rather than its own counters. The source is attached by the ops plugin (it needs the db).
   */
  readonly deliveriesByStatus: Gauge<'status'>;

  /** Returns `[status, count]` pairs; undefined until the ops plugin attaches the database query. */
  deliveryCounts: (() => Promise<ReadonlyArray<readonly [string, number]>>) | undefined;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const counts = (): (() => Promise<ReadonlyArray<readonly [string, number]>>) | undefined => this.deliveryCounts;
    this.deliveriesByStatus = new Gauge({
      name: 'shelfmark_webhook_deliveries',
      help: 'Webhook deliveries in the database by status',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        const source = counts();
        if (source === undefined) return;
        // A scrape must not fail because the database is briefly away: report nothing instead.
        const rows = await source().catch(() => undefined);
        this.reset();
        for (const [status, count] of rows ?? []) this.set({ status }, count);
      },
    });
    if (options.defaultMetrics === true) collectDefaultMetrics({ register: this.registry, prefix: 'shelfmark_' });
  }
}
