/**
 * The brute-force limit of the token endpoint. Only FAILED authentications spend from two buckets:
 *
 * - one per (client id, source address): a guesser is stopped after a few wrong secrets for one
 *   client from one address, while the real client, calling from its own address, keeps its own
 *   untouched bucket and is never locked out by someone failing elsewhere;
 * - one per source address, across all client ids: stops one address spraying many client ids.
 *
 * There is deliberately no bucket per client id alone: it would let anyone lock any client out by
 * failing on purpose. A distributed guesser (many addresses) gets a few guesses per address, which
 * is harmless against 256-bit random secrets. The check runs before the secret is hashed, so a
 * locked-out caller costs no hashing. Limits are per node (see README "Limits").
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { TokenBuckets } from './token-bucket.js';

/** The token endpoint's error word for a caller over this limit: not an RFC 6749 code, but shaped like one. */
export const TOO_MANY_ATTEMPTS = 'too_many_attempts';

export class AuthFailureLimit {
  private readonly perPair: TokenBuckets;
  private readonly perAddress: TokenBuckets;

  constructor(
    config: Pick<Config, 'authFailuresPerClientAddress' | 'authFailuresPerAddress' | 'authFailureWindowSeconds'>,
    clock: Clock,
  ) {
    const window = config.authFailureWindowSeconds;
    this.perPair = new TokenBuckets(
      { burst: config.authFailuresPerClientAddress, ratePerSecond: config.authFailuresPerClientAddress / window },
      clock,
    );
    this.perAddress = new TokenBuckets(
      { burst: config.authFailuresPerAddress, ratePerSecond: config.authFailuresPerAddress / window },
      clock,
    );
  }

  /** Seconds the caller must wait before another attempt is even checked; 0 when it may try now. */
  retryAfter(clientId: string, address: string): number {
    return Math.max(
      this.perPair.secondsUntilToken(pairKey(clientId, address)),
      this.perAddress.secondsUntilToken(address),
    );
  }

  recordFailure(clientId: string, address: string): void {
    this.perPair.take(pairKey(clientId, address));
    this.perAddress.take(address);
  }
}

// A NUL cannot appear in an address, so "a\0b" keys never collide across the two parts.
const pairKey = (clientId: string, address: string): string => `${address}\u0000${clientId}`;
