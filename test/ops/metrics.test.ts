import { afterAll, beforeAll, expect, it } from 'vitest';
import { Metrics } from '../../src/observability/metrics.js';
import { addSubscription, emit, recordAttempt } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';

describeEachEngine('Prometheus metrics', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h.close());

  const scrape = async (): Promise<string> => {
    const response = await h.anonymous().get('/metrics');
    expect(response.statusCode).toBe(200);
    return response.body;
  };

  it('labels requests by route pattern, never by raw URL', async () => {
    await h.anonymous().get('/problems/conflict?utm=1');
    await h.anonymous().get('/problems/not-found');
    await h.anonymous().get('/totally/random/1234');
    await h.anonymous().get('/another/random/5678');
    const text = await scrape();
    expect(text).toMatch(
      /shelfmark_http_request_duration_seconds_count\{method="GET",route="\/problems\/:code",status="200"\} 2/,
    );
    expect(text).toMatch(
      /shelfmark_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 2/,
    );
    expect(text).not.toContain('/problems/conflict');
    expect(text).not.toContain('random');
  });

  it('reports the queue and the last 24 hours of outcomes at scrape time, from the queue and the counters', async () => {
    const client = await createClientWithToken(h, 'Metrics shop');
    const db = h.database.db;
    const now = h.clock.now();
    await addSubscription(db, client.id, 'https://example.org/hook', now);
    await emit(db, now, 6);
    const rows = await db.kysely.selectFrom('deliveries').select('id').orderBy('id').execute();
    const outcomes = ['failed', 'failed', undefined, 'succeeded', 'succeeded', 'succeeded'] as const;
    for (const [index, status] of outcomes.entries()) {
      const row = rows[index];
      if (row === undefined || status === undefined) continue;
      await recordAttempt(db, row.id, now + index, { statusCode: status === 'succeeded' ? 200 : 500, status });
    }
    const text = await scrape();
    expect(text).toContain('# TYPE shelfmark_webhook_deliveries gauge');
    expect(text).toContain('shelfmark_webhook_deliveries{status="failed"} 2');
    expect(text).toContain('shelfmark_webhook_deliveries{status="pending"} 1');
    expect(text).toContain('shelfmark_webhook_deliveries{status="succeeded"} 3');

    // A status that no longer occurs disappears instead of reporting a stale count.
    await db.kysely.deleteFrom('deliveries').where('status', '=', 'pending').execute();
    expect(await scrape()).not.toContain('shelfmark_webhook_deliveries{status="pending"}');

    // Outcomes are those of the last 24 hours: a day on, the finished ones are gone from the gauge.
    h.clock.advance(24 * 3_600_000);
    const later = await scrape();
    expect(later).not.toContain('shelfmark_webhook_deliveries{status="succeeded"}');
    expect(later).toContain('shelfmark_webhook_deliveries_by_status{status="succeeded"} 0');
  });

  it('leaves process metrics to the server (tests build many apps per process)', async () => {
    expect(await scrape()).not.toContain('shelfmark_process_cpu_user_seconds_total');
    const withDefaults = new Metrics({ defaultMetrics: true });
    expect(await withDefaults.registry.metrics()).toContain('shelfmark_process_cpu_user_seconds_total');
  });
});
