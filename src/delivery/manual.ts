/**
 * Attempts made by hand, sent by the process that was asked (not queued for a worker), so the
 * answer is the attempt's outcome:
 *
 * - A test ping is one attempt and only that: never retried, outside the hourly counters, and it
 *   never moves its subscription to failing (a receiver under test may well fail).
 * - "Retry now" on a delivery waiting for its next scheduled attempt sends that delivery once more at
 *   once. It takes no step of the schedule: after a failure the next automatic attempt stays where it
 *   was, and the steps after it keep their places. A failure counts in the subscription's failing
 *   period as a scheduled one does, and announces subscription.failing when that is due.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Initiator } from '../audit/initiator.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ids } from '../ids.js';
import type { Metrics } from '../observability/metrics.js';
import { attemptRecord, signAndSend } from './attempt.js';
import { type FailedAttempt, logFailedAttempt } from './attempt-log.js';
import { type LeasedDelivery, ManualAttemptStore, type ManualTarget } from './manual-store.js';
import type { ErrorClass } from './model.js';
import { UndiciSender, type UndiciSenderOptions, type WebhookSender } from './sender.js';
import type { WorkerLogger } from './worker-options.js';

/** A manual attempt's lease outlasts the attempt's whole timeout by this much. */
const LEASE_MARGIN_MS = 30_000;

/** What a manual attempt came to. */
export interface ManualOutcome {
  deliveryId: string;
  /** True only when the receiver answered 2xx. */
  ok: boolean;
  /** The receiver's HTTP status, or null when no answer came (see errorClass). */
  statusCode: number | null;
  errorClass: ErrorClass | null;
  /** Why it failed, in words (e.g. "HTTP 500", "connect ECONNREFUSED"); null on success. */
  error: string | null;
  durationMs: number;
}

export interface ManualDeps {
  db: ConstructorParameters<typeof ManualAttemptStore>[0];
  /** An attempt's outcome is recorded as one change, with its audit record. */
  work: UnitOfWork;
  clock: Clock;
  config: Pick<Config, 'webhookTimeoutMs' | 'logLevel' | 'subscriptionFailingAfterSeconds'>;
  /** Wakes the workers for deliveries a failed attempt created (its subscription.failing announcement). */
  wake?: (() => void) | undefined;
  metrics: Metrics;
  /** The sender (tests inject one); by default an SSRF-guarded undici sender made on first use. */
  sender?: WebhookSender | undefined;
  senderOptions: Omit<UndiciSenderOptions, 'connectionsPerHost'>;
  /** Where failed attempts are logged; a stderr logger at LOG_LEVEL (as the worker's) by default. */
  logger?: Pick<WorkerLogger, 'warn'> | undefined;
}

export class ManualAttempts {
  private readonly store: ManualAttemptStore;
  private logger: Pick<WorkerLogger, 'warn'> | undefined;
  /** The sender this made for itself, closed by close(). */
  private ownSender: UndiciSender | undefined;

  constructor(private readonly deps: ManualDeps) {
    this.store = new ManualAttemptStore(deps.db);
    this.logger = deps.logger;
  }

  /** Where `subscriptionId`'s webhooks go (undefined when it or its client is gone). */
  target(subscriptionId: string): Promise<ManualTarget | undefined> {
    return this.store.target(subscriptionId);
  }

  /** Sends a ping to the target and records it with its one attempt; the outcome is the attempt's. */
  async ping(target: ManualTarget, by: Initiator): Promise<ManualOutcome> {
    const identifier = ids.resourceIdentifier();
    const payload = JSON.stringify({ type: 'ping', resource: 'subscription', identifier });
    const deliveryId = ids.delivery();
    // Its own event id (x-hook-event-id), as every delivery carries one.
    const eventId = ids.event();
    const sent = await signAndSend({ ...target, id: deliveryId, eventName: 'ping', eventId, payload }, this.sending());
    const attempt = attemptRecord(1, sent);
    const now = this.deps.clock.now();
    const { subscriptionId } = target;
    await this.deps.work.run(by, async ({ trx, record }) => {
      await this.store.recordPing(trx, { deliveryId, eventId, subscriptionId, identifier, payload, now, attempt });
      record('subscription.pinged', subscriptionId, { delivery: { before: null, after: deliveryId } });
    });
    if (attempt.errorClass !== null)
      this.logFailure({ id: deliveryId, subscriptionId }, attempt, { nextAttemptAt: null, trigger: 'ping' });
    return outcome(deliveryId, attempt);
  }

  /**
   * Sends a delivery waiting for its next scheduled attempt now; undefined when it is not waiting
   * (finished, due or being attempted already, never attempted).
   */
  async retryNow(id: string, by: Initiator): Promise<ManualOutcome | undefined> {
    const { clock, config } = this.deps;
    const owner = `manual:${randomUUID()}`;
    const now = clock.now();
    const leased = await this.store.lease(id, owner, now, now + config.webhookTimeoutMs + LEASE_MARGIN_MS);
    if (leased === undefined) return undefined;
    let attempt: ReturnType<typeof attemptRecord>;
    try {
      attempt = attemptRecord(leased.attemptsSoFar + 1, await signAndSend(leased, this.sending()));
    } catch (error) {
      await this.store.release(id, owner);
      throw error;
    }
    const where = { id, owner, subscriptionId: leased.subscriptionId };
    const recordedAt = clock.now();
    const noticeCutoff = recordedAt - config.subscriptionFailingAfterSeconds * 1000;
    const recorded = await this.deps.work.run(by, async ({ trx, record }) => {
      const done = await this.store.recordManual(trx, where, recordedAt, attempt, noticeCutoff);
      const after = attempt.errorClass === null ? 'succeeded' : 'pending';
      if (done !== undefined) record('delivery.sent-now', id, { status: { before: 'pending', after } });
      return done;
    });
    if (recorded !== undefined && recorded.announced > 0) this.deps.wake?.();
    if (recorded !== undefined && recorded.nextAttemptAt !== null)
      this.logFailure(leased, attempt, { nextAttemptAt: recorded.nextAttemptAt, trigger: 'manual' });
    return outcome(id, attempt);
  }

  /** Logs failed manual attempts to `logger` (the app's) instead of stderr. */
  logTo(logger: Pick<WorkerLogger, 'warn'>): void {
    this.logger = logger;
  }

  /** Closes the sender made for manual attempts, if one was (the app's onClose). */
  async close(): Promise<void> {
    await this.ownSender?.close();
    this.ownSender = undefined;
  }

  private sending() {
    const { clock, metrics } = this.deps;
    // One connection per receiver: a manual attempt is one request at a time per person asking.
    this.ownSender ??=
      this.deps.sender === undefined
        ? new UndiciSender({ ...this.deps.senderOptions, connectionsPerHost: 1 })
        : undefined;
    const sender = this.deps.sender ?? this.ownSender;
    if (sender === undefined) throw new Error('no webhook sender');
    return { clock, metrics, sender };
  }

  private logFailure(
    delivery: Pick<LeasedDelivery, 'id' | 'subscriptionId'>,
    attempt: ReturnType<typeof attemptRecord>,
    next: Pick<FailedAttempt, 'nextAttemptAt' | 'trigger'>,
  ): void {
    this.logger ??= pino({ name: 'delivery', level: this.deps.config.logLevel }, pino.destination(2));
    logFailedAttempt(this.logger, {
      deliveryId: delivery.id,
      subscriptionId: delivery.subscriptionId,
      attempt,
      ...next,
    });
  }
}

function outcome(deliveryId: string, attempt: ReturnType<typeof attemptRecord>): ManualOutcome {
  return {
    deliveryId,
    ok: attempt.errorClass === null,
    statusCode: attempt.statusCode,
    errorClass: attempt.errorClass,
    error: attempt.errorClass === null ? null : (attempt.errorMessage ?? attempt.errorClass),
    durationMs: attempt.durationMs,
  };
}
