/**
 * Which due deliveries a worker claims: first attempts before retries, so a retry backlog never
 * delays fresh events, while a quarter of the slots stays open to retries so they are not starved
 * by a steady stream of new events.
 */
import type { Clock } from '../clock.js';
import type { DeliveryStore } from './store.js';
import type { ClaimedDelivery } from './queue/types.js';

export interface LaneOptions {
  owner: string;
  leaseMs: number;
  perSubscription: number;
  pollIntervalMs: number;
}

export class LaneClaimer {
  private retryLaneIdleUntil = 0;

  constructor(
    private readonly store: DeliveryStore,
    private readonly clock: Clock,
    private readonly options: LaneOptions,
  ) {}

  /** New or re-queued deliveries were committed: look at the retry lane again at the next claim. */
  wake(): void {
    this.retryLaneIdleUntil = 0;
  }

  /** Claims up to `free` deliveries across both lanes. */
  async claim(free: number): Promise<ClaimedDelivery[]> {
    // Retries are due seconds apart at the least, so an empty retry lane is looked at again only
    // after a poll interval instead of on every refill; meanwhile first attempts may take every slot.
    const retryLaneOpen = this.clock.now() >= this.retryLaneIdleUntil;
    const claimed = await this.lane('first', retryLaneOpen ? free - Math.floor(free / 4) : free);
    const now = this.clock.now();
    if (retryLaneOpen) {
      const retries = await this.lane('retry', free - claimed.length);
      claimed.push(...retries);
      if (retries.length === 0) this.retryLaneIdleUntil = now + this.options.pollIntervalMs;
    }
    // Claim again while it yields: a claim skips subscriptions at their cap, so each round reaches further.
    for (let round = 0; round < 4 && claimed.length < free; round++) {
      const more = await this.lane('first', free - claimed.length);
      if (more.length === 0) break;
      claimed.push(...more);
    }
    return claimed;
  }

  private lane(lane: 'first' | 'retry', limit: number): Promise<ClaimedDelivery[]> {
    const { owner, leaseMs, perSubscription } = this.options;
    return this.store.claim({ owner, now: this.clock.now(), leaseMs, limit, perSubscription, lane });
  }
}
