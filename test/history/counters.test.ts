/**
 * The counters the history reads rely on (migration 0013) follow the rows: completions add to their
 * hour and to the subscription's health, a delivery queued again by hand or by a recovery is taken
 * back out, and counters written by several processes (shards) are summed.
 */
import { beforeEach, expect, it } from 'vitest';
import { abandon } from '../../src/delivery/queue/abandon.js';
import { HOUR_MS, hourStart, STATS_SHARD, STATS_SHARDS } from '../../src/delivery/stats.js';
import { emit, recordAttempt } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { subscriptionWithPending } from './support.js';

describeEachEngine('history counters', (engine) => {
  const h = useHarness(engine);
  let subscription: string;
  let deliveries: string[];
  beforeEach(async () => {
    subscription = await subscriptionWithPending(h, 3);
    deliveries = (
      await h.database.db.kysely.selectFrom('deliveries').select('id').orderBy('created_at').orderBy('id').execute()
    ).map((row) => row.id);
  });

  const overview = async () =>
    (await h.asAdmin().get('/api/admin/v1/overview')).json<{
      failedLast24h: number;
      failedAttempts24h: number;
      failedDeliveries24h: number;
      queueDepth: number;
    }>();
  const health = async () =>
    (await h.asAdmin().get('/api/admin/v1/subscription-health')).json<{
      data: {
        subscriptionId: string;
        lastSuccessAt: string | null;
        consecutiveFailedAttempts: number;
        consecutiveFailures: number;
        failingSince: string | null;
      }[];
    }>().data;
  const stats = () => h.database.db.kysely.selectFrom('delivery_stats').selectAll().orderBy('hour').execute();

  it('completions add to their hour, in this process shard', async () => {
    const now = h.clock.now();
    const [a, b, c] = deliveries;
    await recordAttempt(h.database.db, a ?? '', now + 1, { statusCode: 200, status: 'succeeded' });
    await recordAttempt(h.database.db, b ?? '', now + 2, { statusCode: 503, status: 'pending', nextAttemptAt: now });
    await recordAttempt(h.database.db, b ?? '', now + HOUR_MS, { statusCode: 500, status: 'failed' });
    await recordAttempt(h.database.db, c ?? '', now + HOUR_MS + 1, { statusCode: 200, status: 'succeeded' });
    expect(STATS_SHARD).toBeGreaterThanOrEqual(0);
    expect(STATS_SHARD).toBeLessThan(STATS_SHARDS);
    expect(await stats()).toEqual([
      { hour: hourStart(now), shard: STATS_SHARD, attempts_ok: 1, attempts_failed: 1, succeeded: 1, failed: 0 },
      {
        hour: hourStart(now) + HOUR_MS,
        shard: STATS_SHARD,
        attempts_ok: 1,
        attempts_failed: 1,
        succeeded: 1,
        failed: 1,
      },
    ]);
  });

  it('another process shard of the same hour is summed by the readers', async () => {
    const now = h.clock.now();
    await recordAttempt(h.database.db, deliveries[0] ?? '', now, { statusCode: 500, status: 'failed' });
    await h.database.db.kysely
      .insertInto('delivery_stats')
      .values({ hour: hourStart(now), shard: (STATS_SHARD + 1) % STATS_SHARDS, attempts_failed: 2, failed: 2 })
      .execute();
    expect((await overview()).failedLast24h).toBe(3);
  });

  it('a success after failures clears the run; the last success is kept to the minute', async () => {
    const now = h.clock.now();
    const [a, b, c] = deliveries;
    await recordAttempt(h.database.db, a ?? '', now, { statusCode: 200, status: 'succeeded' });
    await recordAttempt(h.database.db, b ?? '', now + 1000, { statusCode: 500, status: 'failed' });
    expect(await health()).toEqual([
      {
        subscriptionId: subscription,
        lastSuccessAt: new Date(now).toISOString(),
        consecutiveFailedAttempts: 1,
        consecutiveFailures: 1,
        failingSince: new Date(now + 1000).toISOString(),
      },
    ]);
    // Within the minute the row is not written again for a success alone...
    await emit(h.database.db, now, 1);
    const [d] = (
      await h.database.db.kysely.selectFrom('deliveries').select('id').where('status', '=', 'pending').execute()
    ).filter((row) => row.id !== c);
    await recordAttempt(h.database.db, c ?? '', now + 30_000, { statusCode: 200, status: 'succeeded' });
    // ...unless it ends a run of failures (it did: the run is cleared and the time taken).
    expect(await health()).toEqual([
      {
        subscriptionId: subscription,
        lastSuccessAt: new Date(now + 30_000).toISOString(),
        consecutiveFailedAttempts: 0,
        consecutiveFailures: 0,
        failingSince: null,
      },
    ]);
    await recordAttempt(h.database.db, d?.id ?? '', now + 50_000, { statusCode: 200, status: 'succeeded' });
    expect((await health())[0]?.lastSuccessAt).toBe(new Date(now + 30_000).toISOString());
  });

  it('counts failed attempts from the first one, and says which count is which', async () => {
    const now = h.clock.now();
    const id = deliveries[0] ?? '';
    // Four failed attempts of one delivery, each scheduled for a retry: no delivery has failed for good yet.
    for (let attempt = 0; attempt < 4; attempt++)
      await recordAttempt(h.database.db, id, now + attempt * 1000, {
        statusCode: 500,
        status: 'pending',
        nextAttemptAt: now + 60_000,
      });
    expect(await overview()).toMatchObject({ failedAttempts24h: 4, failedDeliveries24h: 0, failedLast24h: 0 });
    expect(await health()).toEqual([
      {
        subscriptionId: subscription,
        lastSuccessAt: null,
        consecutiveFailedAttempts: 4,
        consecutiveFailures: 4,
        failingSince: new Date(now).toISOString(),
      },
    ]);
    // The overview's hourly bars and its failed-attempt count agree.
    const hours = (await h.asAdmin().get('/api/admin/v1/overview')).json<{ attemptsPerHour: { failed: number }[] }>();
    expect(hours.attemptsPerHour.reduce((sum, bucket) => sum + bucket.failed, 0)).toBe(4);
    // The subscription itself reads failing, with the same count.
    const row = await h.database.db.kysely
      .selectFrom('subscriptions')
      .select(['failing_since', 'consecutive_failures'])
      .executeTakeFirstOrThrow();
    expect({ failingSince: Number(row.failing_since), attempts: Number(row.consecutive_failures) }).toEqual({
      failingSince: now,
      attempts: 4,
    });
    // One success ends the run.
    await recordAttempt(h.database.db, id, now + 5000, { statusCode: 200, status: 'succeeded' });
    expect(await health()).toEqual([
      expect.objectContaining({ consecutiveFailedAttempts: 0, consecutiveFailures: 0, failingSince: null }),
    ]);
  });

  it('a delivery abandoned unsent counts as a failed delivery, not as a failed attempt', async () => {
    const owner = 'test-owner';
    const id = deliveries[0] ?? '';
    await h.database.db.kysely
      .updateTable('deliveries')
      .set({ lease_owner: owner, lease_until: h.clock.now() + 60_000 })
      .where('id', '=', id)
      .execute();
    expect(await abandon(h.database.db.kysely, id, owner, h.clock.now())).toBe(true);
    expect(await overview()).toMatchObject({ failedDeliveries24h: 1, failedAttempts24h: 0, queueDepth: 2 });
    expect(await health()).toEqual([]);
  });

  it('a recovery takes its failed deliveries back out of the counters and ends the run', async () => {
    const now = h.clock.now();
    for (const [index, id] of deliveries.entries())
      await recordAttempt(h.database.db, id, now + index, { statusCode: 500, status: 'failed' });
    expect(await overview()).toMatchObject({ failedDeliveries24h: 3, failedAttempts24h: 3, queueDepth: 0 });
    expect((await health())[0]?.consecutiveFailedAttempts).toBe(3);
    const response = await h.asAdmin().post(`/api/admin/v1/subscriptions/${subscription}/recover-failed`);
    expect(response.json<{ requeued: number }>().requeued).toBe(3);
    // The deliveries are queued again; the attempts that failed stay counted in their hour.
    expect(await overview()).toMatchObject({ failedDeliveries24h: 0, failedAttempts24h: 3, queueDepth: 3 });
    // Never a success and no failure left: nothing to report for it.
    expect(await health()).toEqual([]);
    expect((await stats()).map((row) => row.failed)).toEqual([0]);
  });

  it('an hour whose counters are gone is left alone when its delivery is queued again', async () => {
    const now = h.clock.now();
    const id = deliveries[0] ?? '';
    await recordAttempt(h.database.db, id, now, { statusCode: 500, status: 'failed' });
    await h.database.db.kysely.deleteFrom('delivery_stats').execute();
    const retry = await h.asAdmin().post(`/api/admin/v1/deliveries/${id}/retry`);
    expect(retry.statusCode).toBe(202);
    expect(await stats()).toEqual([]);
  });
});
