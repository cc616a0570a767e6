/**
 * Prometheus metrics, one registry per app instance (tests build many apps in one process).
 * Capabilities record into the named instruments here; /metrics renders the registry.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

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

  readonly deliveryEndToEnd = new Histogram({
    name: 'shelfmark_webhook_delivery_latency_seconds',
    help: 'Time from an event committing to its webhook being delivered successfully (retries included)',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000],
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
   * truth rather than its own counters: pending is the queue now; succeeded and failed are the
   * deliveries that finished so in the last 24 hours (the completions' hourly counters, so a scrape
   * never walks the history). The source is attached by the ops plugin (it needs the db).
   */
  readonly deliveriesByStatus: Gauge<'status'>;

  /**
   * Returns `[status, count]` pairs, every status present (0 when none); undefined until the delivery
   * queue's gauges are installed (overview/queue-gauges.ts), which knows the statuses.
   */
  deliveryCounts: (() => Promise<ReadonlyArray<readonly [string, number]>>) | undefined;

  /**
   * The same counts with every status always present (0 when none), so rate() and alerts never see a
   * series appear or vanish. A separate family: shelfmark_webhook_deliveries keeps its documented
   * behaviour of reporting only statuses that occur.
   */
  readonly deliveriesByStatusAll: Gauge<'status'>;

  /** Pending deliveries (the queue) and the age of the oldest one, read at scrape time. */
  readonly queueDepth: Gauge;
  readonly oldestPendingAge: Gauge;

  /** Returns the pending count and the oldest pending created_at; attached by the ops plugin. */
  queueState: (() => Promise<{ pending: number; oldestCreatedAt: number | null; now: number }>) | undefined;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    // Each database read feeds two gauges; one query per scrape serves both (the first collect starts it).
    const readCounts = oncePerScrape(() => this.deliveryCounts);
    const readQueue = oncePerScrape(() => this.queueState);
    this.deliveriesByStatus = new Gauge({
      name: 'shelfmark_webhook_deliveries',
      help: 'Webhook deliveries by status: pending now; succeeded and failed in the last 24 hours',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        // A scrape must not fail because the database is briefly away: report nothing instead.
        const rows = await readCounts();
        this.reset();
        for (const [status, count] of rows ?? []) if (count > 0) this.set({ status }, count);
      },
    });
    this.deliveriesByStatusAll = new Gauge({
      name: 'shelfmark_webhook_deliveries_by_status',
      help: 'Webhook deliveries by status (pending now; succeeded and failed in the last 24 hours), every status present',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        const rows = await readCounts();
        for (const [status, count] of rows ?? []) this.set({ status }, count);
      },
    });
    this.queueDepth = new Gauge({
      name: 'shelfmark_webhook_queue_depth',
      help: 'Webhook deliveries waiting to be delivered (status pending, including scheduled retries)',
      registers: [this.registry],
      async collect() {
        const state = await readQueue();
        if (state !== undefined) this.set(state.pending);
      },
    });
    this.oldestPendingAge = new Gauge({
      name: 'shelfmark_webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest pending webhook delivery (0 when none): the lag of the queue',
      registers: [this.registry],
      async collect() {
        const state = await readQueue();
        if (state !== undefined)
          this.set(state.oldestCreatedAt === null ? 0 : Math.max(0, state.now - state.oldestCreatedAt) / 1000);
      },
    });
    if (options.defaultMetrics === true) {
      // Unprefixed, as stock Node.js dashboards and alerts expect (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...).
      collectDefaultMetrics({ register: this.registry });
      // The prefixed copies stay for dashboards built on earlier releases; deprecated, to be removed.
      collectDefaultMetrics({ register: this.registry, prefix: 'shelfmark_' });
    }
  }
}

/**
 * Shares one run of `read` among every caller that asks while it runs, and forgets it when it settles:
 * collects of one scrape start together (prom-client gathers every metric at once), so they share a
 * single query, and the next scrape reads afresh.
 */
export function sharedWhileRunning<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

/**
 * Wraps a scrape-time database read so that every collect of one scrape shares a single query; errors
 * read as undefined (the gauge then reports nothing rather than failing the scrape).
 */
function oncePerScrape<T>(source: () => (() => Promise<T>) | undefined): () => Promise<T | undefined> {
  return sharedWhileRunning(async () => {
    const read = source();
    return read === undefined ? undefined : read().catch(() => undefined);
  });
}
