/**
 * Builds the delivery side of the service container: the log and its controls, and workers that
 * the outbox wakes when new deliveries are committed so first attempts start at once.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { DELIVERIES_CHANNEL, type Outbox } from '../events/outbox.js';
import type { Metrics } from '../ops/metrics.js';
import { DeliveryQueryStore } from './query-store.js';
import { type WebhookSender, UndiciSender } from './sender.js';
import { DeliveryService } from './service.js';
import type { LookupFn } from './ssrf.js';
import { ThreadedDeliveryQueue } from './queue-thread/client.js';
import { type DeliveryQueue, DeliveryStore } from './store.js';
import { DeliveryWorker, type WorkerOptions } from './worker.js';

export interface DeliveryDeps {
  config: Config;
  db: Db;
  clock: Clock;
  metrics: Metrics;
  outbox: Outbox;
  sender?: WebhookSender | undefined;
  dnsLookup?: LookupFn | undefined;
}

export interface DeliveryServices {
  deliveries: DeliveryService;
  /** A worker that is not started: call start(), or runOnce() to drive it step by step (tests). */
  createDeliveryWorker(options?: WorkerOptions & { sender?: WebhookSender }): DeliveryWorker;
  /** Starts a delivery worker in this process; `listening` settles once other nodes' commits can wake it. */
  startWorker(options?: WorkerOptions): { stop(): Promise<void>; listening: Promise<void> };
}

export function createDeliveryServices(deps: DeliveryDeps): DeliveryServices {
  const { config, db, clock, metrics, outbox } = deps;
  const deliveries = new DeliveryService(new DeliveryQueryStore(db), outbox, clock);
  const store = new DeliveryStore(db);
  // Started workers share one queue thread on a SQLite file (created here, started on first use).
  const threaded =
    config.webhookQueueThread === 'auto' && db.sqliteFile !== undefined
      ? new ThreadedDeliveryQueue({ sqliteFile: db.sqliteFile, sqliteCacheMib: config.sqliteCacheMib })
      : undefined;
  const workers = new Set<DeliveryWorker>();
  const wakeAll = (): void => {
    for (const worker of workers) worker.wake();
  };
  outbox.onDeliveriesCreated = wakeAll;

  const workerOn = (queue: DeliveryQueue, options: WorkerOptions & { sender?: WebhookSender } = {}): DeliveryWorker => {
    const given = options.sender ?? deps.sender;
    const sender =
      given ??
      new UndiciSender({
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhookAllowPrivate,
        connectionsPerHost: config.webhookConnectionsPerHost,
        lookup: deps.dnsLookup,
      });
    const worker: DeliveryWorker = new DeliveryWorker(
      {
        store: queue,
        sender,
        clock,
        config,
        metrics,
        ownsSender: given === undefined,
        onStopped: () => workers.delete(worker),
      },
      options,
    );
    workers.add(worker);
    return worker;
  };
  // Workers driven step by step (tests) stay on the event loop, where runOnce() finishes deterministically.
  const createDeliveryWorker = (options: WorkerOptions & { sender?: WebhookSender } = {}): DeliveryWorker =>
    workerOn(store, options);

  // Workers of other nodes learn of new deliveries through LISTEN/NOTIFY (PostgreSQL) instead of
  // waiting for their next poll; the listener lives while any started worker does.
  let started = 0;
  let unlisten: Promise<(() => Promise<void>) | undefined> | undefined;

  const startWorker = (options: WorkerOptions = {}): { stop(): Promise<void>; listening: Promise<void> } => {
    const worker = workerOn(threaded ?? store, options).start();
    started++;
    unlisten ??=
      db.listen === undefined
        ? Promise.resolve(undefined)
        : db.listen(DELIVERIES_CHANNEL, wakeAll).catch(() => undefined);
    return {
      listening: unlisten.then(() => undefined),
      stop: async () => {
        await worker.stop();
        if (--started === 0 && unlisten !== undefined) {
          const close = await unlisten;
          unlisten = undefined;
          await close?.();
        }
        if (started === 0) await threaded?.close();
      },
    };
  };

  return { deliveries, createDeliveryWorker, startWorker };
}
