/**
 * The leases one worker holds, counted per subscription: from its claim until the attempt's outcome
 * is committed, or until the lease is handed back or the delivery abandoned. Claims skip subscriptions
 * whose count reached the cap (queue/claim.ts), so the cap needs no index over the lease columns, and
 * a claim stays an update of unindexed columns (migration 0011).
 *
 * The cap therefore shares out one worker's slots, as it is meant to: one slow receiver cannot take
 * every slot of a worker. A lease whose outcome failed to commit leaves the tally at once, while its
 * row stays leased until the lease expires; no claim can take that row meanwhile (the claim checks the
 * row's own lease), so the cap is then merely looser for a while.
 */
export class LeaseTally {
  private readonly counts = new Map<string, number>();

  add(subscriptionId: string): void {
    this.counts.set(subscriptionId, (this.counts.get(subscriptionId) ?? 0) + 1);
  }

  remove(subscriptionId: string): void {
    const count = this.counts.get(subscriptionId) ?? 0;
    if (count <= 1) this.counts.delete(subscriptionId);
    else this.counts.set(subscriptionId, count - 1);
  }

  /** Leases held per subscription (subscriptions without one are absent). */
  get held(): ReadonlyMap<string, number> {
    return this.counts;
  }
}
