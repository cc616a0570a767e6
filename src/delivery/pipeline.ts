/**
 * The worker's two stages after a claim. Sending: at most `concurrency` HTTP attempts at once, and a
 * slot is free again the moment its attempt ends. Recording: a finished attempt's completion waits
 * for the next group commit (queue/batcher.ts) without holding a slot, so no delivery waits for a
 * database round trip before the next one starts.
 *
 * The price is bounded: attempts sent but not yet recorded (in flight, or finished and waiting for
 * their commit) never exceed `concurrency + completionBacklog`; while that many are unrecorded no
 * new attempt starts (backpressure). A crash therefore re-sends at most that many deliveries, each
 * with its own `webhook-id`, as at-least-once allows.
 */
import type { Clock } from '../clock.js';
import type { Metrics } from '../observability/metrics.js';
import { type AttemptSettings, sendAttempt } from './attempt.js';
import { logFailedAttempt } from './attempt-log.js';
import type { LeaseTally } from './lease-tally.js';
import { CompletionBatcher, CompletionsNotWritten } from './queue/batcher.js';
import type { SendContext } from './queue/types.js';
import type { WebhookSender } from './sender.js';
import type { DeliveryQueue } from './store.js';
import type { WorkerSettings } from './worker-options.js';

export interface PipelineDeps {
  store: DeliveryQueue;
  sender: WebhookSender;
  clock: Clock;
  config: AttemptSettings;
  metrics: Metrics;
}

export class AttemptPipeline {
  /** HTTP attempts in flight. */
  private sending = 0;
  /** Attempts started whose outcome is not yet committed (sending ones included). */
  private unrecorded = 0;
  /** Every task not yet settled (attempts with their recording, abandons, releases). */
  private readonly tasks = new Set<Promise<void>>();
  private readonly completions: CompletionBatcher;

  constructor(
    private readonly deps: PipelineDeps,
    private readonly settings: WorkerSettings,
    /** The worker's leases per subscription: a delivery leaves it once its outcome is committed (or it is abandoned). */
    private readonly tally: LeaseTally,
    /**
     * Called whenever a slot may have freed up: an attempt ended (`sent`), or a commit shrank the
     * backlog and cleared its leases (`recorded`).
     */
    private readonly onFreed: (what: 'sent' | 'recorded') => void,
  ) {
    this.completions = new CompletionBatcher((batch) => deps.store.completeMany(batch), settings.logger);
  }

  /** Attempts that may start now: free slots, as far as the completion backlog allows. */
  get free(): number {
    const { concurrency, completionBacklog } = this.settings;
    return Math.max(0, Math.min(concurrency - this.sending, concurrency + completionBacklog - this.unrecorded));
  }

  /** Sending slots taken (what the worker reports as active). */
  get active(): number {
    return this.sending;
  }

  /** Settles once every attempt started so far is sent and recorded (or its recording failed). */
  async settled(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  /** Settles like settled(), or after `ms`, whichever is first. */
  async settledWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([this.settled(), timeout]);
    clearTimeout(timer);
  }

  /** Starts one claimed delivery; the caller checked `free`. */
  start(context: SendContext): void {
    this.track(this.deliver(context));
  }

  /** Tracks side work (abandons, releases) so runOnce() and stop() wait for it too. */
  track(task: Promise<unknown>): void {
    const tracked: Promise<void> = task
      .then(() => undefined)
      .catch((error: unknown) => {
        // A failed group commit was logged once by the batcher, not once per delivery in it.
        if (!(error instanceof CompletionsNotWritten))
          this.settings.onError(error, 'recording a delivery attempt failed (the lease will expire and it is retried)');
      })
      .finally(() => this.tasks.delete(tracked));
    this.tasks.add(tracked);
  }

  private async deliver(context: SendContext): Promise<void> {
    try {
      await this.attempt(context);
    } finally {
      this.tally.remove(context.subscriptionId);
    }
  }

  private async attempt(context: SendContext): Promise<void> {
    const { clock, config, metrics, sender, store } = this.deps;
    if (context.subscriptionStatus !== 'active') {
      if (await store.abandon(context.id, this.settings.owner, clock.now())) metrics.deliveriesFailed.inc();
      return;
    }
    this.sending++;
    this.unrecorded++;
    let recording: Promise<void> | undefined;
    try {
      const completion = await sendAttempt(context, {
        sender,
        clock,
        config,
        metrics,
        owner: this.settings.owner,
        random: this.settings.random,
      });
      // Written with every other completion that finished meanwhile (group commit, queue/batcher.ts).
      recording = this.completions.record(completion).then((outcome) => {
        if (outcome.failed > 0) metrics.deliveriesFailed.inc(outcome.failed);
        if (completion.status !== 'succeeded' && outcome.recorded)
          logFailedAttempt(this.settings.logger, {
            deliveryId: completion.id,
            subscriptionId: completion.subscriptionId,
            attempt: completion.attempt,
            nextAttemptAt: completion.status === 'pending' ? completion.nextAttemptAt : null,
            trigger: 'schedule',
          });
        if (completion.status === 'succeeded' && outcome.recorded)
          metrics.deliveryEndToEnd.observe(Math.max(0, completion.now - context.createdAt) / 1000);
      });
    } finally {
      this.sending--;
      if (recording === undefined) this.unrecorded--;
      this.onFreed(recording === undefined ? 'recorded' : 'sent');
    }
    try {
      await recording;
    } finally {
      this.unrecorded--;
      this.onFreed('recorded');
    }
  }
}
