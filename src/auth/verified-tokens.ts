/**
 * The tokens this node verified, kept until they expire so a request pays a map look-up, not a
 * signature check. Bounded: when full, the expired go first, then the oldest half.
 */
/** What is kept of a verified token: at least when it expires. */
interface Expiring {
  principal: { expiresAt: number };
}

const CACHE_LIMIT = 10_000;

export class VerifiedTokens<Entry extends Expiring> {
  private readonly tokens = new Map<string, Entry>();

  get(token: string): Entry | undefined {
    return this.tokens.get(token);
  }

  keep(token: string, entry: Entry, now: number): void {
    if (this.tokens.size >= CACHE_LIMIT) this.evict(now);
    this.tokens.set(token, entry);
  }

  forget(token: string): void {
    this.tokens.delete(token);
  }

  private evict(now: number): void {
    for (const [token, entry] of this.tokens) {
      if (entry.principal.expiresAt <= now) this.tokens.delete(token);
    }
    // Still full of live tokens: drop the oldest half (Map keeps insertion order).
    if (this.tokens.size >= CACHE_LIMIT) {
      let drop = Math.floor(CACHE_LIMIT / 2);
      for (const token of this.tokens.keys()) {
        if (drop-- <= 0) break;
        this.tokens.delete(token);
      }
    }
  }
}
