/** The delivery worker's options and their defaults, derived from the configuration. */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pino, { type BaseLogger } from 'pino';
import type { Config } from '../config.js';

/** The part of a pino logger the worker uses (a Fastify app's `log` fits). */
export type WorkerLogger = Pick<BaseLogger, 'error' | 'warn'>;

export interface WorkerOptions {
  /** Lease owner name; unique per worker by default. */
  owner?: string;
  concurrency?: number;
  /** Leases one subscription may hold at once (default: half of concurrency), so a slow receiver cannot take every slot. */
  perSubscription?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  /** Deliveries claimed ahead of free slots by the running loop (default: twice concurrency); runOnce() claims none ahead. */
  prefetch?: number;
  /**
   * Finished attempts whose outcome is not yet written (group commit) beyond which sending pauses
   * (default: WEBHOOK_COMPLETION_BACKLOG, else concurrency). A crash re-sends at most
   * concurrency + this many attempts, with the same webhook-id.
   */
  completionBacklog?: number;
  /** How long stop() waits for requests in flight before giving up on them (their leases expire). */
  stopTimeoutMs?: number;
  random?: () => number;
  /** Where the worker logs (the app's logger in the server); a stderr logger at LOG_LEVEL otherwise. */
  logger?: WorkerLogger;
  /** Called for each failure the worker survives; logs it through `logger` by default. */
  onError?: (error: unknown, what: string) => void;
}

export type WorkerSettings = Required<WorkerOptions> & {
  /**
   * Claim again once fewer than this many claimed deliveries wait for a slot (on SQLite, and once this
   * many slots are free or all are), not once per finished request.
   */
  refill: number;
};

/** The configuration the options' defaults come from. */
export type WorkerDefaults = Pick<
  Config,
  'webhookConcurrency' | 'webhookTimeoutMs' | 'webhookCompletionBacklog' | 'logLevel'
>;

export function workerSettings(config: WorkerDefaults, options: WorkerOptions): WorkerSettings {
  const concurrency = options.concurrency ?? config.webhookConcurrency;
  const logger = options.logger ?? pino({ name: 'delivery', level: config.logLevel }, pino.destination(2));
  return {
    owner: options.owner ?? `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`,
    concurrency,
    // The claim-ahead queue and the sending slots together hold up to three times `concurrency` leases,
    // so the cap must leave room for them across a handful of busy subscriptions; the cap, the prefetch
    // and the refill were chosen together (docs/decisions/0002-delivery-claim-and-completion.md).
    perSubscription: options.perSubscription ?? Math.max(4, Math.ceil(concurrency / 2)),
    pollIntervalMs: options.pollIntervalMs ?? 500,
    // The lease must outlive the request (bounded by the timeout) plus signing and recording it.
    leaseMs: options.leaseMs ?? config.webhookTimeoutMs + Math.min(5000, Math.max(1000, config.webhookTimeoutMs / 2)),
    prefetch: options.prefetch ?? 2 * concurrency,
    completionBacklog: options.completionBacklog ?? config.webhookCompletionBacklog ?? concurrency,
    stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
    random: options.random ?? Math.random,
    logger,
    onError: options.onError ?? ((error, what) => logger.error({ err: error }, what)),
    refill: Math.max(1, Math.floor(concurrency / 2)),
  };
}
