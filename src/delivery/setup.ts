/**
 * Builds the delivery side of the service container: the log and its controls, and workers that
 * the outbox wakes when new deliveries are committed so first attempts start at once.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Outbox } from '../events/outbox.js';
import type { Metrics } from '../ops/metrics.js';
import { DeliveryQueryStore } from './query-store.js';
import { type WebhookSender, UndiciSender } from './sender.js';
import { DeliveryService } from './service.js';
import type { LookupFn } from './ssrf.js';
import { DeliveryStore } from './store.js';
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
  /** Starts a delivery worker in this process. */
  startWorker(options?: WorkerOptions): { stop(): Promise<void> };
}

export function createDeliveryServices(deps: DeliveryDeps): DeliveryServices {
  const { config, db, clock, metrics, outbox } = deps;
  const deliveries = new DeliveryService(new DeliveryQueryStore(db), outbox, clock);
  const store = new DeliveryStore(db);
  const workers = new Set<DeliveryWorker>();
  outbox.onDeliveriesCreated = () => {
    for (const worker of workers) worker.wake();
  };

  const createDeliveryWorker = (options: WorkerOptions & { sender?: WebhookSender } = {}): DeliveryWorker => {
    const given = options.sender ?? deps.sender;
    const sender = given ?? new UndiciSender({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate, lookup: deps.dnsLookup });
    const worker: DeliveryWorker = new DeliveryWorker(
      { store, sender, clock, config, metrics, ownsSender: given === undefined, onStopped: () => workers.delete(worker) },
      options,
    );
    workers.add(worker);
    return worker;
  };

  const startWorker = (options: WorkerOptions = {}): { stop(): Promise<void> } => {
    const worker = createDeliveryWorker(options).start();
    return { stop: () => worker.stop() };
  };

  return { deliveries, createDeliveryWorker, startWorker };
}
