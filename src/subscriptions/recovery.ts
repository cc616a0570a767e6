/**
 * "Re-enable and recover what failed", the one click on a failing or disabled subscription (portal
 * banner, console health). What failed is every failed delivery that could have failed in the current
 * failing period: a delivery created up to the whole retry schedule before the period began may have
 * failed within it, so recovery reaches back that far from `failingSince`. The subscription is
 * re-enabled and those deliveries are queued again, with their webhook-ids, through the delivery log.
 */
import type { Initiator } from '../audit/initiator.js';
import { type Clock, isoTime } from '../clock.js';
import type { DeliveryService } from '../delivery/service.js';
import type { SubscriptionService } from './service.js';

export interface Recovered {
  /** Failed deliveries queued again. */
  requeued: number;
  /** The `since` used: deliveries created at or after it were recovered. */
  since: string;
}

export class SubscriptionRecovery {
  private readonly scheduleMs: number;

  constructor(
    private readonly subscriptions: SubscriptionService,
    private readonly deliveries: DeliveryService,
    private readonly clock: Clock,
    retryScheduleSeconds: readonly number[],
  ) {
    this.scheduleMs = retryScheduleSeconds.reduce((sum, seconds) => sum + seconds, 0) * 1000;
  }

  /** For the client's own subscription (another client's is not found). */
  async recoverOwn(clientRef: string, id: string, by: Initiator): Promise<Recovered> {
    const since = this.since((await this.subscriptions.get(clientRef, id)).failingSince);
    return { ...(await this.deliveries.recoverOwn(id, clientRef, since, by)), since };
  }

  /** For the operator: the subscription of whichever client owns it. */
  async recover(id: string, by: Initiator): Promise<Recovered> {
    const since = this.since((await this.subscriptions.adminGet(id)).failingSince);
    return { ...(await this.deliveries.recover(id, since, by)), since };
  }

  private since(failingSince: string | undefined): string {
    const start = failingSince === undefined ? this.clock.now() : Date.parse(failingSince);
    return isoTime(start - this.scheduleMs);
  }
}
