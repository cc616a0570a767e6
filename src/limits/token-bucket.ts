/**
 * Token buckets kept in process memory, one per key. A take is a Map look-up and a few float
 * operations (O(1), one small object per new key), because it runs on every authenticated request.
 * The map is bounded: past `maxKeys` the least recently created key is dropped, which at worst
 * forgives that key, so a flood of made-up keys can never exhaust memory. And it does not keep what
 * it no longer needs: a bucket that has refilled to its burst is the same as no bucket, so a sweep
 * (at most once per refill time, on a take) drops those; keys from an attack that ended go with it.
 */
import type { Clock } from '../clock.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface BucketShape {
  /** Tokens added per second. */
  readonly ratePerSecond: number;
  /** Capacity: how many can be spent at once after a quiet period. */
  readonly burst: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  /** A bucket untouched this long is full again: the sweep's age and its interval. */
  private readonly refillMs: number;
  private lastSweep: number;

  constructor(
    readonly shape: BucketShape,
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {
    this.perMs = shape.ratePerSecond / 1000;
    this.refillMs = Math.max(1000, Math.ceil(shape.burst / this.perMs));
    this.lastSweep = clock.now();
  }

  /** Tokens available to `key` now (refilled, not spent). */
  available(key: string): number {
    const bucket = this.buckets.get(key);
    return bucket === undefined ? this.shape.burst : this.refill(bucket, this.clock.now());
  }

  /**
   * Spends one token when there is one. Returns the tokens left (≥ 0) on success, or -1 when the
   * bucket is empty (nothing is spent then).
   */
  take(key: string): number {
    const now = this.clock.now();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (now - this.lastSweep >= this.refillMs) this.sweep(now);
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value ?? '');
      bucket = { tokens: this.shape.burst, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    const tokens = this.refill(bucket, now);
    if (tokens < 1) return -1;
    bucket.tokens = tokens - 1;
    return bucket.tokens;
  }

  /** Seconds until one token is available to `key` (0 when one is available now). */
  secondsUntilToken(key: string): number {
    const tokens = this.available(key);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.shape.ratePerSecond);
  }

  /** Seconds until a bucket holding `tokens` is full again. */
  secondsUntilFull(tokens: number): number {
    return Math.ceil((this.shape.burst - tokens) / this.shape.ratePerSecond);
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Drops every bucket that is full by now: O(keys), at most once per refill time, so O(1) per take. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= this.refillMs) this.buckets.delete(key);
    }
  }

  private refill(bucket: Bucket, now: number): number {
    // A clock that steps back never mints tokens.
    const elapsed = now > bucket.updatedAt ? now - bucket.updatedAt : 0;
    bucket.updatedAt = Math.max(now, bucket.updatedAt);
    bucket.tokens = Math.min(this.shape.burst, bucket.tokens + elapsed * this.perMs);
    return bucket.tokens;
  }
}
