import { afterAll, beforeAll, expect, it } from 'vitest';
import { Metrics } from '../../src/ops/metrics.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { newDelivery } from '../../src/events/outbox.js';

describeEachEngine('Prometheus metrics', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => h.close());

  const scrape = async (): Promise<string> => {
    const response = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    return response.body;
  };

  it('labels requests by route pattern, never by raw URL', async () => {
    await h.app.inject({ method: 'GET', url: '/problems/conflict?utm=1' });
    await h.app.inject({ method: 'GET', url: '/problems/not-found' });
    await h.app.inject({ method: 'GET', url: '/totally/random/1234' });
    await h.app.inject({ method: 'GET', url: '/another/random/5678' });
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

  it('reports deliveries by status from the database at scrape time', async () => {
    const client = await createClientWithToken(h, 'Metrics shop');
    const kysely = h.database.db.kysely;
    const now = h.clock.now();
    await kysely
      .insertInto('subscriptions')
      .values({
        id: 'sub_metrics0000000000000',
        client_ref: client.id,
        notification_url: 'https://example.org/hook',
        event: 'list.published',
        event_as_given: 'list.published',
        status: 'active',
        disabled_reason: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await kysely
      .insertInto('events')
      .values({
        id: 'evt_metrics0000000000000',
        name: 'list.published',
        resource: 'list',
        identifier: '0'.repeat(32),
        payload: '{}',
        created_at: now,
      })
      .execute();
    const statuses = ['failed', 'failed', 'pending', 'succeeded', 'succeeded', 'succeeded'];
    await kysely
      .insertInto('deliveries')
      .values(
        statuses.map((status, index) => ({
          ...newDelivery(
            'evt_metrics0000000000000',
            'sub_metrics0000000000000',
            now,
            `dlv_metrics${String(index).padStart(14, '0')}`,
          ),
          status,
        })),
      )
      .execute();
    const text = await scrape();
    expect(text).toContain('# TYPE shelfmark_webhook_deliveries gauge');
    expect(text).toContain('shelfmark_webhook_deliveries{status="failed"} 2');
    expect(text).toContain('shelfmark_webhook_deliveries{status="pending"} 1');
    expect(text).toContain('shelfmark_webhook_deliveries{status="succeeded"} 3');

    // A status that no longer occurs disappears instead of reporting a stale count.
    await kysely.deleteFrom('deliveries').where('status', '=', 'pending').execute();
    expect(await scrape()).not.toContain('shelfmark_webhook_deliveries{status="pending"}');
  });

  it('leaves process metrics to the server (tests build many apps per process)', async () => {
    expect(await scrape()).not.toContain('shelfmark_process_cpu_user_seconds_total');
    const withDefaults = new Metrics({ defaultMetrics: true });
    expect(await withDefaults.registry.metrics()).toContain('shelfmark_process_cpu_user_seconds_total');
  });
});
