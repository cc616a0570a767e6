/**
 * Builds the delivery workers of this process: workers driven step by step (tests) or started, and
 * `wake`, which the outbox and the delivery controls call after a commit that made deliveries due,
 * so first attempts start at once.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { DELIVERIES_CHANNEL } from '../events/outbox.js';
import type { Metrics } from '../observability/metrics.js';
import { WorkerHeartbeat } from './heartbeat.js';
import { ThreadedDeliveryQueue } from './queue-thread/client.js';
import { UndiciSender, type WebhookSender } from './sender.js';
import type { LookupFn } from './ssrf.js';
import { type DeliveryQueue, DeliveryStore } from './store.js';
import { DeliveryWorker, type WakeReason, type WorkerDeps, type WorkerOptions } from './worker.js';
import { workerSettings } from './worker-options.js';

export interface DeliveryDeps {
  /** The workers' settings, the sender's and where the queue runs. */
  config: WorkerDeps['config'] &
    Pick<
      Config,
      | 'webhookAllowPrivate'
      | 'webhookConnectionsPerHost'
      | 'webhookQueueThread'
      | 'sqliteCacheMib'
      | 'workerHeartbeatSeconds'
    >;
  db: Db;
  clock: Clock;
  metrics: Metrics;
  sender?: WebhookSender | undefined;
  dnsLookup?: LookupFn | undefined;
}

export interface StartedWorker {
  stop(): Promise<void>;
  listening: Promise<void>;
  /** True when its claims and completions run on the queue's own thread (WEBHOOK_QUEUE_THREAD). */
  queueOnThread: boolean;
  /** This process's heartbeat (one for all its started workers); `recorded` settles once the first beat is written. */
  heartbeat: { id: string; recorded: Promise<void>; beat(): Promise<void> };
}

export interface DeliveryWorkers {
  /** A worker that is not started: call start(), or runOnce() to drive it step by step (tests). */
  createDeliveryWorker(options?: WorkerOptions & { sender?: WebhookSender }): DeliveryWorker;
  /**
   * Starts a delivery worker in this process; `listening` settles once other nodes' commits can wake it.
   * `workerOnly`: the process runs nothing else (`--role worker`), so on a SQLite file its queue may
   * take a thread of its own (WEBHOOK_QUEUE_THREAD).
   */
  startWorker(options?: WorkerOptions, placement?: { workerOnly?: boolean }): StartedWorker;
  /** Wakes every worker of this process (after a commit that made deliveries due). */
  wake(what?: WakeReason): void;
}

export function createDeliveryWorkers(deps: DeliveryDeps): DeliveryWorkers {
  const { config, db, clock, metrics } = deps;
  const store = new DeliveryStore(db, clock);
  // A worker-only process on a SQLite file runs its queue on a thread (created here, started with the
  // first such worker). Not beside the API: its writes and the thread's would wait on each other for
  // SQLite's write lock, whose busy handler sleeps in steps of milliseconds (in the bench's latency
  // scenario, --role all, commit → first attempt took longer at p50 and p99 with the thread than
  // without it; docs/performance.md#decisions).
  const threaded =
    config.webhookQueueThread === 'auto' && db.sqliteFile !== undefined
      ? new ThreadedDeliveryQueue({ sqliteFile: db.sqliteFile, sqliteCacheMib: config.sqliteCacheMib })
      : undefined;
  const workers = new Set<DeliveryWorker>();
  const wakeAll = (what: WakeReason = 'requeued'): void => {
    for (const worker of workers) worker.wake(what);
  };

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
  // One heartbeat per process, while any started worker runs (heartbeat.ts).
  let heartbeat: { beats: WorkerHeartbeat; recorded: Promise<void> } | undefined;

  const startWorker = (options: WorkerOptions = {}, placement: { workerOnly?: boolean } = {}): StartedWorker => {
    const queue = placement.workerOnly === true ? threaded?.start() : undefined;
    const worker = workerOn(queue ?? store, options).start();
    started++;
    if (heartbeat === undefined) {
      const beats = new WorkerHeartbeat({
        db,
        clock,
        intervalMs: config.workerHeartbeatSeconds * 1000,
        role: placement.workerOnly === true ? 'worker' : 'all',
        // Where the worker reports what it survives (its logger at LOG_LEVEL unless given).
        onError: workerSettings(config, options).onError,
      });
      heartbeat = { beats, recorded: beats.start() };
    }
    const { beats, recorded } = heartbeat;
    unlisten ??=
      db.listen === undefined
        ? Promise.resolve(undefined)
        : // Only the outbox and replays notify: new deliveries (delivery controls wake their own node).
          db.listen(DELIVERIES_CHANNEL, () => wakeAll('new')).catch(() => undefined);
    return {
      queueOnThread: queue !== undefined,
      listening: unlisten.then(() => undefined),
      heartbeat: { id: beats.id, recorded, beat: () => beats.beat() },
      stop: async () => {
        await worker.stop();
        if (--started === 0) {
          heartbeat = undefined;
          await beats.stop();
        }
        if (started === 0 && unlisten !== undefined) {
          const close = await unlisten;
          unlisten = undefined;
          await close?.();
        }
        if (started === 0) await threaded?.close();
      },
    };
  };

  return { createDeliveryWorker, startWorker, wake: wakeAll };
}
