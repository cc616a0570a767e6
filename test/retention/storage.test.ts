/**
 * GET /api/admin/v1/storage, exactly, before and after a prune (the audit log among the tables); who
 * may read it; and the retention families of /metrics (rows pruned, the last prune's time, the
 * database's size).
 */
import { beforeEach, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { isoTime } from '../../src/clock.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { DAY, DEFAULT_RETENTION, History } from './support.js';

describeEachEngine('retention: the storage view', (engine) => {
  const h = useHarness(engine);
  let now: number;
  beforeEach(async () => {
    now = h.clock.now();
    const history = await new History(h.database.db, now).setUp();
    await history.event('evt_old', now - 100 * DAY);
    await history.event('evt_new', now - DAY);
    await history.delivery({
      id: 'dlv_old',
      event: 'evt_old',
      status: 'succeeded',
      createdAt: now - 100 * DAY,
      completedAt: now - 100 * DAY,
    });
    await history.delivery({
      id: 'dlv_new',
      event: 'evt_new',
      status: 'pending',
      createdAt: now - DAY,
      completedAt: null,
    });
    await h.database.db.kysely
      .insertInto('delivery_stats')
      .values({ hour: now - 91 * DAY, shard: 0, succeeded: 1 })
      .execute();
  });

  const storage = async () => {
    const response = await h.asAdmin().get('/api/admin/v1/storage');
    expect(response.statusCode).toBe(200);
    return response.json<Record<string, unknown>>();
  };
  const table = (name: string, rows: number, oldest: number | null, bound: string) => ({
    table: name,
    rows,
    rowsExact: true,
    oldestAt: oldest === null ? null : isoTime(oldest),
    bound,
  });
  const changes = 'entries older than 10 minutes, the newest kept';

  it('shows rows and the oldest row per table, the size, the settings and the last prune', async () => {
    const sqlite = engine === 'sqlite';
    // Two audit records older than AUDIT_RETENTION_DAYS (400).
    h.clock.set(now - 401 * DAY);
    for (const _ of [1, 2])
      await h.services.work.run(SYSTEM, async ({ record }) => record('retention.pruned', 'prune'));
    h.clock.set(now);
    const expected = {
      engine,
      databaseBytes: expect.any(Number),
      freeBytes: sqlite ? expect.any(Number) : null,
      autoVacuum: sqlite ? 'incremental' : null,
      retention: {
        ...DEFAULT_RETENTION,
        pruneIntervalSeconds: 3600,
        pruneBatchSize: 1000,
        prunePauseMs: 100,
      },
      generatedAt: isoTime(now),
    };
    const fixed = (
      deliveries: number,
      attempts: number,
      events: number,
      stats: number,
      oldestDelivery: number,
      oldestEvent: number,
      audit: number,
      oldestAudit: number,
    ) => [
      table(
        'deliveries',
        deliveries,
        oldestDelivery,
        'succeeded older than 30 days, failed older than 90 days (since completion); pending never',
      ),
      table(
        'delivery_attempts',
        attempts,
        attempts === 0 ? null : now - 100 * DAY,
        'with their delivery; answers on attempts older than 7 days',
      ),
      table('events', events, oldestEvent, 'events older than 90 days, once no kept delivery refers to them'),
      table('delivery_stats', stats, stats === 0 ? null : now - 91 * DAY, 'hourly counters older than 90 days'),
      table('idempotency_keys', 0, null, 'expired (24 hours after the first request)'),
      table('web_sessions', 0, null, 'idle for 1800 s (SESSION_IDLE_SECONDS)'),
      table('portal_links', 0, null, 'used, or expired (15 minutes)'),
      table('offer_changes', 0, null, changes),
      table('school_changes', 0, null, changes),
      table('audit_records', audit, oldestAudit, 'audit records older than 400 days'),
    ];
    const before = await storage();
    expect(before).toEqual({
      ...expected,
      tables: fixed(2, 1, 2, 1, now - 100 * DAY, now - 100 * DAY, 2, now - 401 * DAY),
      lastPrune: null,
    });
    expect(before.databaseBytes).toBeGreaterThan(0);

    h.clock.advance(1000);
    const outcome = await h.services.retention.prune();
    expect(outcome.status).toBe('pruned');
    expect(await storage()).toEqual({
      ...expected,
      generatedAt: isoTime(now + 1000),
      // The two old audit records went; the prune's own record is the oldest now.
      tables: fixed(1, 0, 1, 0, now - DAY, now - DAY, 1, now + 1000),
      lastPrune: {
        startedAt: isoTime(now + 1000),
        finishedAt: isoTime(now + 1000),
        complete: true,
        rows: {
          deliveries: 1,
          delivery_attempts: 1,
          events: 1,
          response_bodies: 0,
          delivery_stats: 1,
          idempotency_keys: 0,
          web_sessions: 0,
          portal_links: 0,
          offer_changes: 0,
          school_changes: 0,
          audit_records: 2,
        },
      },
    });

    const metrics = (await h.anonymous().get('/metrics')).body;
    expect(metrics).toContain('shelfmark_pruned_rows_total{table="deliveries"} 1\n');
    expect(metrics).toContain('shelfmark_pruned_rows_total{table="delivery_stats"} 1\n');
    expect(metrics).toContain('shelfmark_pruned_rows_total{table="web_sessions"} 0\n');
    expect(metrics).toContain('shelfmark_pruned_rows_total{table="audit_records"} 2\n');
    expect(metrics).toContain(`shelfmark_last_prune_timestamp_seconds ${(now + 1000) / 1000}\n`);
    expect(Number(/^shelfmark_database_size_bytes (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
  });

  it('answers 401 without the admin token, with a wrong one and with a client token; the console session reads it', async () => {
    const client = await createClientWithToken(h);
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, client.bearer]) {
      const response = await h.anonymous().get('/api/admin/v1/storage', { headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'unauthenticated', status: 401 });
    }
    const session = await h.anonymous().post('/dashboard/api/session', { token: ADMIN_TOKEN });
    const cookie = String(session.headers['set-cookie']).split(';')[0] ?? '';
    const console = await h.anonymous().get('/api/admin/v1/storage', { headers: { cookie } });
    expect(console.statusCode).toBe(200);
    // A portal session's cookie is not a console session.
    const forged = await h
      .anonymous()
      .get('/api/admin/v1/storage', { headers: { cookie: cookie.replace('shelfmark_console', 'shelfmark_portal') } });
    expect(forged.statusCode).toBe(401);
  });

  it('before any prune /metrics reports the last prune time and every table at 0', async () => {
    const metrics = (await h.anonymous().get('/metrics')).body;
    expect(metrics).toContain('shelfmark_last_prune_timestamp_seconds 0\n');
    expect(metrics).toContain('shelfmark_pruned_rows_total{table="deliveries"} 0\n');
  });
});
