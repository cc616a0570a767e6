/**
 * Webhooks arrive at least once: a retry after a lost answer repeats the same delivery. This remembers
 * ids for a while (in memory, bounded) so a receiver can skip repeats. Give it event ids: a webhook's
 * `eventId` (x-hook-event-id; the handlers do) and a feed event's `id` are the same value, so one
 * deduplicator serves push and pull together. Several receiver processes need a shared store instead
 * (e.g. a unique key in their own database).
 */
export interface DeduplicatorOptions {
  /** How long an id is remembered, in ms (default 24 h, longer than Shelfmark's first retries). */
  ttlMs?: number;
  /** The most ids remembered; the oldest go first (default 10 000). */
  maxEntries?: number;
  now?: () => number;
}

export class WebhookDeduplicator {
  private readonly seen = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: DeduplicatorOptions = {}) {
    this.ttlMs = options.ttlMs ?? 86_400_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** True when the id was seen within the TTL; otherwise records it and answers false. */
  isDuplicate(id: string): boolean {
    const now = this.now();
    const at = this.seen.get(id);
    if (at !== undefined && now - at < this.ttlMs) return true;
    this.seen.delete(id);
    this.seen.set(id, now);
    // Map keeps insertion order: the first entries are the oldest.
    for (const [key, when] of this.seen) {
      if (this.seen.size <= this.maxEntries && now - when < this.ttlMs) break;
      this.seen.delete(key);
    }
    return false;
  }

  /** Forgets an id, e.g. when processing failed and a redelivery should be handled again. */
  forget(id: string): void {
    this.seen.delete(id);
  }

  get size(): number {
    return this.seen.size;
  }
}
