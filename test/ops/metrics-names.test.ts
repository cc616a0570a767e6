/**
 * /metrics parsed as Prometheus text exposition: the names stock dashboards and our Grafana dashboard
 * (docs/grafana-dashboard.json) use are present, every delivery status is reported (0 when none), and
 * the queue gauges and the end-to-end delivery latency follow the database and the worker.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { type App, buildApp } from '../../src/main/app.js';
import { createServices, type Services } from '../../src/main/services.js';
import { Metrics } from '../../src/observability/metrics.js';
import { addSubscription, emit, type Receiver, startReceiver } from '../delivery/support.js';
import { publishedOfferRow } from '../offers/support.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { requester } from '../support/requests.js';
import { until } from '../support/until.js';

interface Family {
  type: string;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

/** A strict-enough parser of the text format: every sample must belong to a declared family. */
function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP')) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type !== null) {
      families.set(type[1] ?? '', { type: type[2] ?? '', samples: [] });
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|Nan|\+Inf|-Inf)$/.exec(line);
    if (sample === null) throw new Error(`not a sample line: ${line}`);
    const name = sample[1] ?? '';
    const family = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count|total|created)$/, ''));
    if (family === undefined) throw new Error(`sample without a family: ${line}`);
    const labels = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
        m[1] ?? '',
        m[2] ?? '',
      ]),
    );
    family.samples.push({ name, labels, value: Number(sample[3]) });
  }
  return families;
}

describeEachEngine('metrics names and delivery gauges', (engine) => {
  let app: App;
  let services: Services;
  let database: TestDatabase;
  let clock: ManualClock;
  let receiver: Receiver | undefined;

  beforeEach(async () => {
    database = await freshDatabase(engine);
    clock = new ManualClock(Date.now());
    const config = testConfig({ adminToken: 'test-admin-token-0123456789', webhookAllowPrivate: true });
    const deps = { config, db: database.db, clock, metrics: new Metrics({ defaultMetrics: true }) };
    services = await createServices(deps);
    app = await buildApp({ ...deps, services }, { logger: false });
    await app.ready();
  });
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
    await app.close();
    await database.drop();
  });

  const scrape = async () => {
    const response = await requester(app, {}).get('/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(response.body);
  };
  const value = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
    (families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, '')))?.samples.find(
      (sample) => sample.name === name && Object.entries(labels).every(([key, v]) => sample.labels[key] === v),
    )?.value;

  it('exposes the standard unprefixed runtime metrics and every Shelfmark family the dashboard uses', async () => {
    const families = await scrape();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    expect(families.get('shelfmark_http_request_duration_seconds')?.type).toBe('histogram');
    expect(families.get('shelfmark_webhook_delivery_latency_seconds')?.type).toBe('histogram');
    expect(families.get('shelfmark_webhook_queue_depth')?.type).toBe('gauge');
    expect(families.get('shelfmark_webhook_oldest_pending_age_seconds')?.type).toBe('gauge');
    expect(families.get('shelfmark_webhook_attempts_total')?.type).toBe('counter');

    // Every metric the Grafana dashboard queries exists.
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const used = new Set(
      [...dashboard.matchAll(/\b((?:shelfmark|process|nodejs)_[a-z0-9_]+)/g)].map((m) =>
        (m[1] ?? '').replace(/_(bucket|sum|count)$/, ''),
      ),
    );
    const missing = [...used].filter((name) => !families.has(name) && !families.has(name.replace(/_total$/, '')));
    expect(missing).toEqual([]);
    expect(used.size).toBeGreaterThan(8);
  });

  it("reports the offers read model's EANs and its look-ups by result", async () => {
    const model = services.offers.readModel;
    await until(() => model.warm, 'the read model to warm up');
    const ean = eanOf(730_001);
    await database.db.kysely
      .insertInto('offers')
      .values(publishedOfferRow(ean, 'a'.repeat(32), 900))
      .execute();
    await model.sync();
    await model.published([ean]); // changed since the catalogue was read: asked of the database
    await model.published([ean]); // held since
    const families = await scrape();
    expect(families.get('shelfmark_offers_read_model_eans')?.type).toBe('gauge');
    expect(value(families, 'shelfmark_offers_read_model_eans')).toBe(1);
    expect(value(families, 'shelfmark_offers_read_model_lookups_total', { result: 'miss' })).toBe(1);
    expect(value(families, 'shelfmark_offers_read_model_lookups_total', { result: 'hit' })).toBe(1);
  });

  it('reports every delivery status at 0 on an empty database, and the queue as empty', async () => {
    const families = await scrape();
    const statuses = families
      .get('shelfmark_webhook_deliveries_by_status')
      ?.samples.map((s) => [s.labels.status, s.value]);
    expect(statuses?.sort()).toEqual([
      ['cancelled', 0],
      ['failed', 0],
      ['pending', 0],
      ['succeeded', 0],
    ]);
    expect(value(families, 'shelfmark_webhook_queue_depth')).toBe(0);
    expect(value(families, 'shelfmark_webhook_oldest_pending_age_seconds')).toBe(0);
  });

  it('queue depth, oldest-pending age and the end-to-end latency histogram follow real deliveries', async () => {
    receiver = await startReceiver();
    const created = await requester(app, { authorization: 'Bearer test-admin-token-0123456789' }).post(
      '/api/admin/v1/clients',
      { name: 'Shop' },
    );
    await addSubscription(database.db, created.json<{ id: string }>().id, receiver.url, clock.now());
    await emit(database.db, clock.now(), 2);
    clock.advance(90_000);
    let families = await scrape();
    expect(value(families, 'shelfmark_webhook_queue_depth')).toBe(2);
    expect(value(families, 'shelfmark_webhook_oldest_pending_age_seconds')).toBe(90);
    expect(value(families, 'shelfmark_webhook_deliveries_by_status', { status: 'pending' })).toBe(2);
    expect(value(families, 'shelfmark_webhook_deliveries_by_status', { status: 'succeeded' })).toBe(0);

    const worker = services.createDeliveryWorker({ random: () => 0.5, onError: () => undefined });
    expect(await worker.runOnce()).toBe(2);
    await worker.stop();
    families = await scrape();
    expect(value(families, 'shelfmark_webhook_queue_depth')).toBe(0);
    expect(value(families, 'shelfmark_webhook_oldest_pending_age_seconds')).toBe(0);
    expect(value(families, 'shelfmark_webhook_deliveries_by_status', { status: 'succeeded' })).toBe(2);
    expect(value(families, 'shelfmark_webhook_deliveries_by_status', { status: 'pending' })).toBe(0);
    expect(value(families, 'shelfmark_webhook_delivery_latency_seconds_count')).toBe(2);
    expect(value(families, 'shelfmark_webhook_delivery_latency_seconds_sum')).toBe(180);
    expect(value(families, 'shelfmark_webhook_delivery_latency_seconds_bucket', { le: '60' })).toBe(0);
    expect(value(families, 'shelfmark_webhook_delivery_latency_seconds_bucket', { le: '300' })).toBe(2);
  });
});
