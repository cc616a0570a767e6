/**
 * The delivery worker: claims due deliveries under a lease, signs and sends them with bounded
 * concurrency, and records each attempt with its outcome. Any number of workers may share one
 * database; a crashed worker's leases expire and are claimed again (at-least-once, `webhook-id`
 * lets receivers de-duplicate).
 *
 * A slot is freed when its HTTP attempt ends; the attempt's outcome is recorded in a group commit
 * behind it, with a bounded backlog (pipeline.ts). It polls when idle, and claims at once when the
 * outbox wakes it or slots free up. Tests drive it deterministically with `runOnce()` and a manual clock.
 */
import type { Clock } from '../clock.js';
import type { Metrics } from '../observability/metrics.js';
import type { AttemptSettings } from './attempt.js';
import { LaneClaimer } from './lanes.js';
import { LeaseTally } from './lease-tally.js';
import { AttemptPipeline } from './pipeline.js';
import type { SendContext } from './queue/types.js';
import type { WebhookSender } from './sender.js';
import type { DeliveryQueue } from './store.js';
import { type WorkerDefaults, type WorkerOptions, type WorkerSettings, workerSettings } from './worker-options.js';

export type { WorkerOptions } from './worker-options.js';

/** What a commit made due: only new deliveries (the outbox, a replay), or re-queued ones too. */
export type WakeReason = 'new' | 'requeued';

export interface WorkerDeps {
  store: DeliveryQueue;
  sender: WebhookSender;
  clock: Clock;
  /** The settings the worker reads: its defaults and those of each attempt. */
  config: WorkerDefaults & AttemptSettings;
  metrics: Metrics;
  /** Close the sender on stop() (it was made for this worker alone). */
  ownsSender?: boolean;
  onStopped?: () => void;
}

export class DeliveryWorker {
  readonly owner: string;
  private readonly settings: WorkerSettings;
  private readonly refill: number;
  private readonly onError: (error: unknown, what: string) => void;
  private readonly pipeline: AttemptPipeline;
  /**
   * Claimed deliveries waiting for a free slot. The loop claims up to `prefetch` (twice `concurrency`)
   * ahead, because a claim of 64 rows costs far less than eight claims of 8, so the per-delivery database
   * work shrinks with the batch, and a PostgreSQL claim's round trip passes while the queue still feeds
   * the slots (docs/performance.md#decisions). Queued rows are leased like sending ones
   * (the per-subscription cap counts them); a row whose lease could no longer cover a whole attempt
   * is handed back unsent, and after a crash the unsent rows are simply claimed again.
   */
  private readonly queue: { context: SendContext; claimedAt: number }[] = [];
  private readonly lanes: LaneClaimer;
  /** Leases this worker holds per subscription, for the per-subscription cap (lease-tally.ts). */
  private readonly tally = new LeaseTally();
  private running = false;
  private stopped = false;
  private loopDone: Promise<void> | undefined;
  private signalled = false;
  /**
   * The last claim leased fewer rows than it asked for: nothing more is due, or the rest belongs to
   * subscriptions at their lease cap. Claiming again as each attempt ends would only repeat that
   * scan; the next claim waits for a commit (leases cleared), a wake() or the poll interval.
   */
  private claimedShort = false;
  private release: (() => void) | undefined;

  constructor(
    private readonly deps: WorkerDeps,
    options: WorkerOptions = {},
  ) {
    const settings = workerSettings(deps.config, options);
    this.settings = settings;
    ({ owner: this.owner, refill: this.refill, onError: this.onError } = settings);
    this.pipeline = new AttemptPipeline(deps, settings, this.tally, (what) => this.freed(what));
    this.lanes = new LaneClaimer(deps.store, deps.clock, settings, this.tally);
  }

  start(): this {
    if (this.running) return this;
    this.running = true;
    this.loopDone = this.loop();
    return this;
  }

  /**
   * Claim now instead of at the next poll: deliveries were committed. `new`: only new ones (first
   * attempts), so the retry lane keeps its idle time; `requeued`: either lane.
   */
  wake(what: WakeReason = 'requeued'): void {
    if (what === 'requeued') this.lanes.wake();
    this.signal();
  }

  private signal(): void {
    this.signalled = true;
    this.release?.();
  }

  /** Stops claiming, then waits (bounded) for the requests in flight to be sent and their backlog recorded. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    this.wake();
    await this.loopDone;
    // Hand back what was claimed but never sent, so another worker need not wait for the leases to expire.
    const unsent = this.queue.splice(0).map((entry) => entry.context);
    for (const context of unsent) this.tally.remove(context.subscriptionId);
    if (unsent.length > 0)
      await this.deps.store
        .release(
          unsent.map((context) => context.id),
          this.owner,
          this.deps.clock.now(),
        )
        .catch((error: unknown) => this.onError(error, 'releasing unsent deliveries failed (their leases expire)'));
    await this.pipeline.settledWithin(this.settings.stopTimeoutMs);
    if (this.deps.ownsSender === true) await this.deps.sender.close();
    this.deps.onStopped?.();
  }

  /** Claims one batch, sends it and waits until every attempt is recorded; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.dispatch(this.pipeline.free);
    await this.pipeline.settled();
    return claimed;
  }

  get active(): number {
    return this.pipeline.active;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const free = this.pipeline.free;
      if (free > 0 || this.claimsEarly()) {
        try {
          await this.dispatch(free, this.settings.prefetch);
        } catch (error) {
          this.onError(error, 'claiming deliveries failed');
        }
      }
      if (!this.running) break;
      await this.waitForSignal();
    }
  }

  /** Resolves on wake(), on a finished request, or after the poll interval, whichever is first. */
  private async waitForSignal(): Promise<void> {
    if (this.signalled) {
      this.signalled = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.settings.pollIntervalMs);
      this.release = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.release = undefined;
    this.signalled = false;
  }

  /**
   * Starts queued deliveries in up to `slots` free slots, then claims more (queue/claim.ts, lanes.ts)
   * when the queue runs low: up to `ahead` beyond the free slots (none for runOnce()).
   */
  private async dispatch(slots: number, ahead = 0): Promise<number> {
    if (slots <= 0 && ahead === 0) return 0;
    const fromQueue = this.startQueued(slots);
    // Enough is queued to keep the slots busy until the next refill: no claim this time.
    if (this.queue.length >= this.refill || (ahead === 0 && fromQueue > 0)) return fromQueue;
    const free = slots - fromQueue + ahead - this.queue.length;
    if (free <= 0) return fromQueue;
    const { contexts, orphans } = await this.lanes.claim(free);
    this.claimedShort = contexts.length + orphans.length < free;
    // Its event, subscription or client is gone: ended unsent.
    for (const id of orphans) this.pipeline.track(this.deps.store.abandon(id, this.owner, this.deps.clock.now()));
    if (contexts.length === 0 && orphans.length === 0) return fromQueue;
    const claimedAt = this.deps.clock.now();
    for (const context of contexts) this.queue.push({ context, claimedAt });
    this.startQueued(this.pipeline.free);
    return fromQueue + contexts.length + orphans.length;
  }

  /** Starts queued deliveries in up to `slots` free slots; returns how many started. */
  private startQueued(slots: number): number {
    let started = 0;
    const now = this.deps.clock.now();
    const stale: string[] = [];
    while (started < slots && this.queue.length > 0) {
      const entry = this.queue.shift();
      if (entry === undefined) break;
      // The lease was sized for one attempt from the claim; after waiting this long it no longer covers one.
      if (now - entry.claimedAt > this.settings.leaseMs - this.deps.config.webhookTimeoutMs) {
        stale.push(entry.context.id);
        this.tally.remove(entry.context.subscriptionId);
        continue;
      }
      this.pipeline.start(entry.context);
      started++;
    }
    if (stale.length > 0) this.pipeline.track(this.deps.store.release(stale, this.owner, now));
    return started;
  }

  /**
   * Whether to claim now, before slots are free: once the queue runs low, when the claim runs off the
   * event loop (PostgreSQL, or SQLite's queue thread), so it overlaps the sending (waiting until half
   * the slots stood empty as well left more of them idle in a PostgreSQL drain, and delivered fewer a
   * second). Not when a SQLite claim holds the event loop: claiming early there only splits the same
   * work into more claims, and interleaved drains delivered fewer a second (figures:
   * docs/performance.md#decisions).
   */
  private claimsEarly(): boolean {
    return this.deps.store.claimsOverlapSending && this.queue.length < this.refill;
  }

  /**
   * An attempt ended or a commit shrank the backlog: the next queued delivery takes the slot at once;
   * claim again once the queue runs low (and, on SQLite, enough slots are free or all are), not once
   * per request.
   */
  private freed(what: 'sent' | 'recorded'): void {
    const free = this.pipeline.free;
    if (this.running && this.queue.length > 0 && free > 0) this.startQueued(free);
    if (what === 'recorded') this.claimedShort = false;
    // After a short claim only a commit (which clears leases) can let the next one reach further.
    else if (this.claimedShort) return;
    if (
      this.claimsEarly() ||
      (this.queue.length < this.refill && (this.pipeline.active === 0 || this.pipeline.free >= this.refill))
    )
      this.signal();
  }
}
