/**
 * Every per-key structure that a caller outside can grow stays within its cap under
 * many distinct keys, and drops what it no longer needs. Time is a ManualClock (no sleeps); the offers
 * read model runs on a fake store, so only its own memory is under test.
 */

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { type ChangeLogStore, LogPosition } from '../../src/db/change-log.js';
import { DIALECTS } from '../../src/db/database.js';
import { AuthFailureLimit } from '../../src/limits/auth-failures.js';
import { TokenBuckets } from '../../src/limits/token-bucket.js';
import { NO_OFFERS } from '../../src/offers/fragment.js';
import { ownedKey } from '../../src/offers/fragment-memory.js';
import { OfferReadModel } from '../../src/offers/read-model.js';
import type { OfferStore } from '../../src/offers/store.js';
import { parseEanList } from '../../src/vocabulary/ean.js';
import { eanOf } from '../support/ean.js';

describe('TokenBuckets under many distinct keys', () => {
  it('never holds more than maxKeys buckets, however many keys arrive', () => {
    const clock = new ManualClock(0);
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 5 }, clock, 1000);
    for (let i = 0; i < 50_000; i++) {
      buckets.take(`attacker-${i}`);
      if (i % 997 === 0) expect(buckets.size).toBeLessThanOrEqual(1000);
    }
    expect(buckets.size).toBe(1000);
  });

  it('drops buckets that refilled to their burst once the refill time has passed', () => {
    const clock = new ManualClock(0);
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 5 }, clock, 100_000);
    for (let i = 0; i < 5000; i++) buckets.take(`burst-${i}`);
    expect(buckets.size).toBe(5000);
    clock.advance(4000); // not yet full (4 of 5 seconds): nothing may go
    buckets.take('late');
    expect(buckets.size).toBe(5001);
    clock.advance(1000); // the first 5,000 are full now; 'late' is not
    buckets.take('next');
    expect(buckets.size).toBe(2);
    expect(buckets.available('burst-0')).toBe(5); // dropped = full, as it would have been
    expect(buckets.take('late')).toBe(4); // kept: 4 left + 1 refilled − 1 taken
  });

  it('keeps an empty bucket (a limited caller) until it has refilled', () => {
    const clock = new ManualClock(0);
    const buckets = new TokenBuckets({ ratePerSecond: 0.1, burst: 1 }, clock);
    expect(buckets.take('guesser')).toBe(0);
    clock.advance(9000);
    buckets.take('someone-else'); // triggers no sweep before 10 s have passed since the start
    expect(buckets.take('guesser')).toBe(-1);
  });

  it('the auth-failure limit forgets made-up client ids after its window', () => {
    const clock = new ManualClock(0);
    const limit = new AuthFailureLimit(
      { authFailuresPerClientAddress: 5, authFailuresPerAddress: 1_000_000, authFailureWindowSeconds: 60 },
      clock,
    );
    for (let i = 0; i < 20_000; i++) limit.recordFailure(`made-up-${i}`.padEnd(200, 'x'), '203.0.113.7');
    const perPair = (limit as unknown as { perPair: TokenBuckets }).perPair;
    expect(perPair.size).toBe(20_000);
    clock.advance(60_000);
    limit.recordFailure('one-more', '203.0.113.7');
    expect(perPair.size).toBe(1);
  });
});

describe('OfferReadModel under many made-up EANs', () => {
  const store = {
    findPublishedByEans: async () => [],
  } as unknown as OfferStore;
  const log = {
    start: async () => LogPosition.fromVisible([], DIALECTS.sqlite, 0),
    read: async () => [],
    pruneIfDue: async () => undefined,
  } as unknown as ChangeLogStore;

  it('holds at most OFFERS_CACHE_EANS EANs, and EANs without offers share one fragment', async () => {
    const model = new OfferReadModel(
      store,
      log,
      { serviceFeeCents: 0, offersCacheEans: 1000, offersSyncIntervalMs: 60_000 },
      DIALECTS.sqlite,
    );
    try {
      for (let batch = 0; batch < 50; batch++) {
        // One query value of 100 EANs, parsed as the route parses it (the keys are cut from it).
        const raw = Array.from({ length: 100 }, (_, i) => eanOf(batch * 100 + i)).join(',');
        await model.published(parseEanList(raw));
        expect(model.stats().eans).toBeLessThanOrEqual(1000);
      }
      expect(model.stats().eans).toBe(1000);
      const [first, second] = await model.fragmentsFor([eanOf(4998), eanOf(4999)]);
      expect(first).toBe(NO_OFFERS);
      expect(second).toBe(NO_OFFERS);
    } finally {
      await model.stop();
    }
  });

  it('ownedKey copies the EAN exactly', () => {
    const raw = `${eanOf(1)},${eanOf(2)}`;
    const [a, b] = parseEanList(raw);
    expect([ownedKey(a ?? ''), ownedKey(b ?? '')]).toEqual([eanOf(1), eanOf(2)]);
  });
});
