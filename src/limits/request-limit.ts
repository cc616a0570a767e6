/**
 * The per-client request rate limit of the public API (per node; see README "Limits"). It runs in
 * the bearer guard, after the token is verified, so the key is a real client id and an unauthenticated
 * flood cannot create buckets. Every limited response carries the IETF RateLimit-Policy and RateLimit
 * fields (draft-ietf-httpapi-ratelimit-headers: `"client";q=<burst>;w=<seconds>` and
 * `"client";r=<remaining>;t=<seconds>`); an empty bucket answers 429 with Retry-After.
 */
import type { FastifyReply } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { Problem } from '../problems/catalogue.js';
import { TokenBuckets } from './token-bucket.js';

const POLICY = 'client';

export class RequestRateLimit {
  private readonly buckets: TokenBuckets | undefined;
  /** Constant per process: computed once, not per request. */
  readonly policyHeader: string;

  constructor(config: Pick<Config, 'rateLimitRate' | 'rateLimitBurst'>, clock: Clock) {
    const { rateLimitRate: rate, rateLimitBurst: burst } = config;
    this.buckets = rate > 0 ? new TokenBuckets({ ratePerSecond: rate, burst }, clock) : undefined;
    this.policyHeader = `"${POLICY}";q=${burst};w=${Math.max(1, Math.ceil(burst / Math.max(rate, Number.MIN_VALUE)))}`;
  }

  get enabled(): boolean {
    return this.buckets !== undefined;
  }

  /** Spends one request of `clientId`'s quota and sets the headers, or throws the 429 problem. */
  consume(clientId: string, reply: FastifyReply): void {
    const buckets = this.buckets;
    if (buckets === undefined) return;
    const left = buckets.take(clientId);
    if (left < 0) {
      const retryAfter = buckets.secondsUntilToken(clientId);
      throw new Problem(
        'rate-limited',
        `this client sent more than ${buckets.shape.burst} requests in a burst or more than ${buckets.shape.ratePerSecond} per second; retry after ${retryAfter} s`,
        { retryAfter },
        {
          'retry-after': String(retryAfter),
          'ratelimit-policy': this.policyHeader,
          ratelimit: `"${POLICY}";r=0;t=${retryAfter}`,
        },
      );
    }
    void reply
      .header('ratelimit-policy', this.policyHeader)
      .header('ratelimit', `"${POLICY}";r=${Math.floor(left)};t=${buckets.secondsUntilFull(left)}`);
  }
}
