/**
 * Which due deliveries a worker claims: first attempts before retries, so a retry backlog never
 * delays fresh events, while a quarter of the slots stays open to retries so they are not starved
 * by a steady stream of new events.
 */
import type { Clock } from '../clock.js';
import type { LeaseTally } from './lease-tally.js';
import type { ClaimedBatch } from './queue/types.js';
import type { DeliveryQueue } from './store.js';

export interface LaneOptions {
  owner: string;
  leaseMs: number;
  perSubscription: number;
  pollIntervalMs: number;
}

export class LaneClaimer {
  private retryLaneIdleUntil = 0;
  /** When each lane may next walk past capped subscriptions (queue/claim.ts, `reach`). */
  private readonly reachPastCappedAfter = { first: 0, retry: 0 };

  constructor(
    private readonly store: DeliveryQueue,
    private readonly clock: Clock,
    private readonly options: LaneOptions,
    /** The worker's leases per subscription: read by each claim for the cap, and added to. */
    private readonly tally: LeaseTally,
  ) {}

  /** New or re-queued deliveries were committed: look at the retry lane again at the next claim. */
  wake(): void {
    this.retryLaneIdleUntil = 0;
  }

  /** Claims up to `free` deliveries across both lanes, each with what is needed to send it. */
  async claim(free: number): Promise<ClaimedBatch> {
    const claimed: ClaimedBatch = { contexts: [], orphans: [] };
    const size = (): number => claimed.contexts.length + claimed.orphans.length;
    const add = (batch: ClaimedBatch): number => {
      claimed.contexts.push(...batch.contexts);
      claimed.orphans.push(...batch.orphans);
      return batch.contexts.length + batch.orphans.length;
    };
    // Retries are due seconds apart at the least, so an empty retry lane is looked at again only
    // after a poll interval instead of on every refill; meanwhile first attempts may take every slot.
    const retryLaneOpen = this.clock.now() >= this.retryLaneIdleUntil;
    const asked = retryLaneOpen ? free - Math.floor(free / 4) : free;
    let short = add(await this.lane('first', asked)) < asked;
    const now = this.clock.now();
    if (retryLaneOpen && add(await this.lane('retry', free - size())) === 0)
      this.retryLaneIdleUntil = now + this.options.pollIntervalMs;
    // Claim again while it yields: a claim skips subscriptions at their cap, so each round reaches further.
    // With no subscription at its cap nothing was skipped, and a claim that came back short of what it
    // asked for found every due row of the lane.
    for (let round = 0; round < 4 && size() < free && (!short || this.anyAtCap()); round++) {
      const wanted = free - size();
      const got = add(await this.lane('first', wanted));
      if (got === 0) break;
      short = got < wanted;
    }
    return claimed;
  }

  /**
   * Whether a subscription holds as many of this worker's leases as it may. When none does, a claim
   * skipped no row for the cap, so one that came back short found every due row of its lane: claiming
   * again at once would find none (a round trip and a scan for nothing, after every commit).
   */
  private anyAtCap(): boolean {
    for (const held of this.tally.held.values()) if (held >= this.options.perSubscription) return true;
    return false;
  }

  /**
   * Claims from the lane's first due rows (a bounded look). Short of `limit`, the rest may be hidden
   * behind subscriptions at their cap: then, at most once a poll interval, a claim walks past them.
   */
  private async lane(lane: 'first' | 'retry', limit: number): Promise<ClaimedBatch> {
    const { owner, leaseMs, perSubscription, pollIntervalMs } = this.options;
    const now = this.clock.now();
    const claim = async (size: number, reach: 'window' | 'past-capped'): Promise<ClaimedBatch> => {
      const batch = await this.store.claimToSend({
        owner,
        now,
        leaseMs,
        limit: size,
        perSubscription,
        held: this.tally.held,
        lane,
        reach,
      });
      for (const context of batch.contexts) this.tally.add(context.subscriptionId);
      return batch;
    };
    const batch = await claim(limit, 'window');
    const got = batch.contexts.length + batch.orphans.length;
    if (got >= limit || now < this.reachPastCappedAfter[lane] || !this.anyAtCap()) return batch;
    this.reachPastCappedAfter[lane] = now + pollIntervalMs;
    const further = await claim(limit - got, 'past-capped');
    return { contexts: [...batch.contexts, ...further.contexts], orphans: [...batch.orphans, ...further.orphans] };
  }
}
