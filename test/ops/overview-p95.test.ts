/**
 * The overview's p95 commit-to-delivery latency, ranked in the database (src/overview/store.ts):
 * the nearest rank (the ceil(0.95 n)-th smallest) of the newest `cap` successes created in the window,
 * on both engines alike — failed deliveries, older ones and those past the cap left out.
 */
import { expect, it } from 'vitest';
import { OverviewStore } from '../../src/overview/store.js';
import { addSubscription, emit } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const HOUR = 3_600_000;

describeEachEngine('overview: p95 delivery latency', (engine) => {
  const h = useHarness(engine);

  /** One delivery per latency, created a second apart from `from` on; each ends as `status` after its latency. */
  const deliveries = async (from: number, latencies: readonly number[], status = 'succeeded'): Promise<void> => {
    const db = h.database.db;
    for (const [i, latency] of latencies.entries()) {
      const createdAt = from + i * 1000;
      await emit(db, createdAt);
      await db.kysely
        .updateTable('deliveries')
        .set({ status, completed_at: createdAt + latency, updated_at: createdAt + latency })
        .where('created_at', '=', createdAt)
        .where('status', '=', 'pending')
        .execute();
    }
  };

  it('is the nearest rank of the window’s successes; null without any', async () => {
    const store = new OverviewStore(h.database.db);
    const now = h.clock.now();
    const since = now - 24 * HOUR;
    expect(await store.p95Latency(since, 5000)).toBeNull();

    const shop = await createClientWithToken(h, 'Shop');
    await addSubscription(h.database.db, shop.id, 'http://127.0.0.1:9/x', now - 48 * HOUR);
    // Older than the window: slow, and left out.
    await deliveries(now - 30 * HOUR, [900_000, 900_000]);
    // In the window: 10, 20, ... 200 ms (created slowest first), and two failures that took far longer.
    const latencies = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    await deliveries(now - 2 * HOUR, [...latencies].reverse());
    await deliveries(now - HOUR, [500_000, 600_000], 'failed');
    // ceil(0.95 × 20) = 19th smallest.
    expect(await store.p95Latency(since, 5000)).toBe(190);
    // The newest 5 only (10, 20, 30, 40, 50 ms, created last): ceil(0.95 × 5) = 5th smallest.
    expect(await store.p95Latency(since, 5)).toBe(50);
    // One success alone is its own p95.
    expect(await store.p95Latency(since, 1)).toBe(10);
  });
});
