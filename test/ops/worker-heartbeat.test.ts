/**
 * Workers announce themselves: a process that starts delivery workers records a heartbeat with the
 * injected clock, and every node's overview and /metrics count the workers alive, so deliveries
 * waiting with no worker are visible. An API-only app is no worker, and /readyz stays about its node.
 */
import { expect, it } from 'vitest';
import { createWorkerServices } from '../../src/main/services.js';
import type { Overview } from '../../src/overview/schemas.js';
import { addSubscription, emit } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, type Harness } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const SECOND = 1000;
// Beats come from the test (heartbeat.beat()) after moving the clock; the real timer never fires in a test.
const HEARTBEAT_SECONDS = 600;
const ALIVE_WITHIN_MS = 3 * HEARTBEAT_SECONDS * SECOND;

const overview = async (h: Harness): Promise<Overview> => {
  const response = await h.asAdmin().get('/api/admin/v1/overview');
  expect(response.statusCode).toBe(200);
  return response.json<Overview>();
};

const gauge = async (h: Harness, name: string): Promise<number> => {
  const text = (await h.anonymous().get('/metrics')).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`${name} not in /metrics`);
  return Number(line.slice(name.length + 1));
};

/** Three deliveries waiting, due tomorrow, so a running worker leaves them waiting. */
const waitingDeliveries = async (h: Harness): Promise<void> => {
  const db = h.database.db;
  const shop = await createClientWithToken(h, 'Shop');
  await addSubscription(db, shop.id, 'https://receiver.example.org/hook', h.clock.now());
  await emit(db, h.clock.now(), 3);
  await db.kysely
    .updateTable('deliveries')
    .set({ next_attempt_at: h.clock.now() + 24 * 3600 * SECOND })
    .execute();
};

const heartbeats = (h: Harness) => h.database.db.kysely.selectFrom('worker_heartbeats').selectAll().execute();

describeEachEngine('worker heartbeat', (engine) => {
  const h = useHarness(engine, { config: { workerHeartbeatSeconds: HEARTBEAT_SECONDS } });

  it('is written when a worker starts and refreshed with the clock, one row per process', async () => {
    const started = h.clock.now();
    const first = h.services.startWorker({ pollIntervalMs: 600_000 });
    const second = h.services.startWorker({ pollIntervalMs: 600_000 });
    await first.heartbeat.recorded;
    expect(second.heartbeat.id).toBe(first.heartbeat.id);
    const [row] = await heartbeats(h);
    expect(await heartbeats(h)).toHaveLength(1);
    expect(row).toMatchObject({ id: first.heartbeat.id, role: 'all', pid: process.pid, stopped_at: null });
    expect(Number(row?.started_at)).toBe(started);
    expect(Number(row?.last_seen_at)).toBe(started);
    expect(row?.id).toMatch(/^wrk_/);

    h.clock.advance(HEARTBEAT_SECONDS * SECOND);
    await first.heartbeat.beat();
    const [refreshed] = await heartbeats(h);
    expect(Number(refreshed?.last_seen_at)).toBe(h.clock.now());
    expect(Number(refreshed?.started_at)).toBe(started);

    // The heartbeat ends with the process's last worker, and says so at once.
    await first.stop();
    expect((await heartbeats(h))[0]?.stopped_at).toBeNull();
    h.clock.advance(SECOND);
    await second.stop();
    expect(Number((await heartbeats(h))[0]?.stopped_at)).toBe(h.clock.now());
    expect((await overview(h)).workers.alive).toBe(0);
  });

  it('names a worker-only process by its role, and prunes heartbeats unseen for a week', async () => {
    const old = h.clock.now() - 8 * 24 * 3600 * SECOND;
    await h.database.db.kysely
      .insertInto('worker_heartbeats')
      .values({ id: 'wrk_gone', host: 'elsewhere', pid: 1, role: 'worker', started_at: old, last_seen_at: old })
      .execute();
    const node = createWorkerServices({ config: h.config, db: h.database.db, clock: h.clock });
    const worker = node.startWorker({ pollIntervalMs: 600_000 }, { workerOnly: true });
    await worker.heartbeat.recorded;
    const rows = await heartbeats(h);
    expect(rows.map((row) => [row.id, row.role])).toEqual([[worker.heartbeat.id, 'worker']]);
    await worker.stop();
  });

  it('an API-only app is no worker: waiting deliveries are reported with none alive, /readyz stays ready', async () => {
    await waitingDeliveries(h);
    const o = await overview(h);
    expect(o.queueDepth).toBe(3);
    expect(o.workers).toEqual({ alive: 0, lastSeenAt: null, aliveWithinSeconds: 3 * HEARTBEAT_SECONDS, missing: true });
    expect(await gauge(h, 'shelfmark_workers_alive')).toBe(0);
    expect(await gauge(h, 'shelfmark_worker_last_seen_timestamp_seconds')).toBe(0);
    expect(await gauge(h, 'shelfmark_webhook_queue_depth')).toBe(3);
    expect((await h.anonymous().get('/readyz')).statusCode).toBe(200);
  });

  it('counts a worker that stopped beating as gone after three intervals, with the waiting count', async () => {
    await waitingDeliveries(h);
    const worker = h.services.startWorker({ pollIntervalMs: 600_000 });
    await worker.heartbeat.recorded;
    expect((await overview(h)).workers).toMatchObject({ alive: 1, missing: false });
    expect(await gauge(h, 'shelfmark_workers_alive')).toBe(1);

    // Two intervals late is still alive; past three, gone (as a crashed process would be).
    h.clock.advance(2 * HEARTBEAT_SECONDS * SECOND);
    await worker.heartbeat.beat();
    const lastBeat = h.clock.now();
    h.clock.advance(ALIVE_WITHIN_MS);
    expect((await overview(h)).workers.alive).toBe(1);
    h.clock.advance(SECOND);
    const o = await overview(h);
    expect(o.queueDepth).toBe(3);
    expect(o.workers).toEqual({
      alive: 0,
      lastSeenAt: new Date(lastBeat).toISOString(),
      aliveWithinSeconds: 3 * HEARTBEAT_SECONDS,
      missing: true,
    });
    expect(await gauge(h, 'shelfmark_workers_alive')).toBe(0);
    expect(await gauge(h, 'shelfmark_worker_last_seen_timestamp_seconds')).toBe(lastBeat / 1000);
    expect(await gauge(h, 'shelfmark_webhook_queue_depth')).toBe(3);
    expect((await h.anonymous().get('/readyz')).statusCode).toBe(200);
    await worker.stop();
  });

  it('reports the subscriptions failing', async () => {
    const shop = await createClientWithToken(h, 'Shop');
    const db = h.database.db;
    const failing = await addSubscription(db, shop.id, 'https://receiver.example.org/a', h.clock.now());
    await addSubscription(db, shop.id, 'https://receiver.example.org/b', h.clock.now());
    expect(await gauge(h, 'shelfmark_subscriptions_failing')).toBe(0);
    await db.kysely
      .updateTable('subscriptions')
      .set({ failing_since: h.clock.now() })
      .where('id', '=', failing)
      .execute();
    expect(await gauge(h, 'shelfmark_subscriptions_failing')).toBe(1);
  });
});
