/**
 * The delivery engine end to end over real sockets: a node:http receiver on 127.0.0.1, the real
 * undici sender, a manual clock and runOnce() so the retry schedule needs no sleeping.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import {
  addSubscription,
  attemptRows,
  deliveryRows,
  emit,
  type Receiver,
  type Reply,
  startReceiver,
  verifyWebhook,
} from './support.js';

describeEachEngine('webhook delivery end to end', (engine) => {
  let h: Harness;
  let client: Awaited<ReturnType<typeof createClientWithToken>>;
  let receiver: Receiver | undefined;
  let worker: DeliveryWorker | undefined;

  const setup = async (overrides: Partial<Config> = {}, respond?: (index: number) => Reply): Promise<Receiver> => {
    h = await createHarness(engine, {
      webhookAllowPrivate: true,
      webhookRetryScheduleSeconds: [1, 2],
      webhookTimeoutMs: 2000,
      ...overrides,
    });
    // Real time, so the receiver's standardwebhooks timestamp check (±5 min) passes.
    h.clock.set(Date.now());
    client = await createClientWithToken(h);
    receiver = await startReceiver((_request, index) => respond?.(index) ?? {});
    const created = h.services.createDeliveryWorker({ random: () => 0.5, onError: () => undefined });
    worker = created;
    runOnce = () => created.runOnce();
    return receiver;
  };
  let runOnce: () => Promise<number>;
  const db = () => h.database.db;
  const subscribe = (url: string) => addSubscription(db(), client.id, url, h.clock.now());
  const admin = (method: 'GET' | 'POST', url: string, payload?: object) =>
    h.asAdmin().request(method, `/api/admin/v1${url}`, payload);

  beforeEach(() => {
    receiver = undefined;
    worker = undefined;
  });
  afterEach(async () => {
    await worker?.stop();
    await receiver?.close();
    await h.close();
  });

  it('delivers a real event to a subscription made through the API, signed both ways, body exact', async () => {
    const r = await setup();
    const created = await h
      .as(client)
      .post('/api/lml/v1/subscriptions', { notificationUrl: r.url, event: 'school-created' });
    expect(created.statusCode).toBe(201);
    const school = await admin('POST', '/schools', { name: 'Het Lyceum', type: 'VO' });
    expect(school.statusCode).toBe(201);
    expect(await runOnce()).toBe(1);

    expect(r.received).toHaveLength(1);
    const request = r.received[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks');
    expect(request.body).toBe(
      JSON.stringify({
        type: 'created',
        resource: 'school',
        identifier: school.json<{ identifier: string }>().identifier,
      }),
    );
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Shelfmark-Webhooks/1.0');
    expect(request.headers['x-hook-event']).toBe('school.created');
    verifyWebhook(request, client.webhookSecret);
    const [delivery] = await deliveryRows(db());
    expect(request.headers['webhook-id']).toBe(delivery!.id);
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      last_status_code: 200,
      lease_owner: null,
      completed_at: h.clock.now(),
    });
    const [attempt] = await attemptRows(db(), delivery!.id);
    expect(attempt).toMatchObject({ attempt_no: 1, status_code: 200, error_class: null, response_body: 'ok' });
    await expect(h.services.metrics.deliveryAttempts.get()).resolves.toMatchObject({
      values: [{ labels: { outcome: 'success' }, value: 1 }],
    });
  });

  it('a receiver that fails twice then succeeds: 3 attempts, one success, same webhook-id, failing_since cleared', async () => {
    const r = await setup({}, (index) => (index < 2 ? { status: 500, body: 'x'.repeat(10_000) } : {}));
    const subscriptionId = await subscribe(r.url);
    await emit(db(), h.clock.now());
    expect(await runOnce()).toBe(1);
    const afterFirst = await h.database.db.kysely
      .selectFrom('subscriptions')
      .select('failing_since')
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(afterFirst.failing_since).toBe(h.clock.now());
    expect(await runOnce()).toBe(0); // not due yet: the schedule says 1 s
    h.clock.advance(1000);
    expect(await runOnce()).toBe(1);
    h.clock.advance(2000);
    expect(await runOnce()).toBe(1);

    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of r.received) verifyWebhook(request, client.webhookSecret);
    const [delivery] = await deliveryRows(db());
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 3, last_status_code: 200 });
    const attempts = await attemptRows(db(), delivery!.id);
    expect(attempts.map((a) => [a.attempt_no, a.status_code, a.error_class])).toEqual([
      [1, 500, 'http'],
      [2, 500, 'http'],
      [3, 200, null],
    ]);
    expect(attempts[0]!.response_body).toHaveLength(4096);
    const subscription = await db()
      .kysely.selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription.failing_since).toBeNull();
  });

  it('permanent failure ends as failed after the schedule; the operator re-sends it and it arrives', async () => {
    let healthy = false;
    const r = await setup({}, () => (healthy ? {} : { status: 503 }));
    await subscribe(r.url);
    await emit(db(), h.clock.now());
    await runOnce();
    h.clock.advance(1000);
    await runOnce();
    h.clock.advance(2000);
    await runOnce();
    h.clock.advance(3_600_000);
    expect(await runOnce()).toBe(0);
    const [failed] = await deliveryRows(db());
    expect(failed).toMatchObject({
      status: 'failed',
      attempt_count: 3,
      last_status_code: 503,
      last_error_class: 'http',
    });
    expect((await h.services.metrics.deliveriesFailed.get()).values[0]?.value).toBe(1);

    const listed = await admin('GET', '/deliveries?status=failed');
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toMatchObject({
      has_more: false,
      data: [
        {
          id: failed!.id,
          status: 'failed',
          attemptCount: 3,
          lastStatusCode: 503,
          lastErrorClass: 'http',
          nextAttemptAt: null,
        },
      ],
    });

    healthy = true;
    const retried = await admin('POST', `/deliveries/${failed!.id}/retry`);
    expect(retried.statusCode).toBe(202);
    expect(retried.json()).toMatchObject({
      id: failed!.id,
      status: 'pending',
      nextAttemptAt: new Date(h.clock.now()).toISOString(),
    });
    expect((await admin('POST', `/deliveries/${failed!.id}/retry`)).statusCode).toBe(409);
    expect(await runOnce()).toBe(1);
    expect(r.received).toHaveLength(4);
    const detail = await admin('GET', `/deliveries/${failed!.id}`);
    expect(detail.json()).toMatchObject({
      status: 'succeeded',
      attemptCount: 4,
      attempts: [
        { attemptNo: 1 },
        { attemptNo: 2 },
        { attemptNo: 3 },
        { attemptNo: 4, statusCode: 200, errorClass: null },
      ],
    });
  });

  it('410 Gone disables the subscription and fails its other pending deliveries', async () => {
    const r = await setup({}, () => ({ status: 410 }));
    const subscriptionId = await subscribe(r.url);
    await emit(db(), h.clock.now(), 3);
    const oneWorker = h.services.createDeliveryWorker({ concurrency: 1, onError: () => undefined });
    expect(await oneWorker.runOnce()).toBe(1);
    await oneWorker.stop();
    const subscription = await db()
      .kysely.selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription).toMatchObject({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone' });
    expect((await deliveryRows(db())).map((row) => row.status)).toEqual(['failed', 'failed', 'failed']);
    expect(await runOnce()).toBe(0);
    expect(r.received).toHaveLength(1);
    // A new event no longer creates deliveries for it.
    await emit(db(), h.clock.now());
    expect(await deliveryRows(db())).toHaveLength(3);

    const recovered = await admin('POST', `/subscriptions/${subscriptionId}/recover`, {
      since: new Date(h.clock.now() - 60_000).toISOString(),
    });
    expect(recovered.json()).toEqual({ requeued: 3 });
    const again = await db()
      .kysely.selectFrom('subscriptions')
      .select('status')
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(again.status).toBe('active');
  });

  it('a receiver that never answers: error class timeout, next attempt at least a minute later', async () => {
    const r = await setup({ webhookTimeoutMs: 300 }, () => ({ hang: true }));
    await subscribe(r.url);
    await emit(db(), h.clock.now());
    const started = Date.now();
    await runOnce();
    expect(Date.now() - started).toBeLessThan(2000);
    const [delivery] = await deliveryRows(db());
    expect(delivery).toMatchObject({
      status: 'pending',
      last_error_class: 'timeout',
      last_status_code: null,
      next_attempt_at: h.clock.now() + 60_000,
    });
    const [attempt] = await attemptRows(db());
    expect(attempt!.error_class).toBe('timeout');
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(250);
  });

  it('a 302 redirect is a failure of class http and the target is never called', async () => {
    const target = await startReceiver();
    try {
      const r = await setup({}, () => ({ status: 302, headers: { location: target.url } }));
      await subscribe(r.url);
      await emit(db(), h.clock.now());
      await runOnce();
      const [delivery] = await deliveryRows(db());
      expect(delivery).toMatchObject({ status: 'pending', last_status_code: 302, last_error_class: 'http' });
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('with the guard on, a subscription pointing at localhost is refused at connect time (blocked)', async () => {
    const r = await setup({ webhookAllowPrivate: false });
    await subscribe(`http://localhost:${r.port}/`);
    await subscribe(`http://127.0.0.1:${r.port}/literal`);
    await emit(db(), h.clock.now());
    expect(await runOnce()).toBe(2);
    expect(r.received).toHaveLength(0);
    const attempts = await attemptRows(db());
    expect(attempts.map((a) => a.error_class)).toEqual(['blocked', 'blocked']);
    expect(attempts.every((a) => /loopback/.test(a.error_message ?? ''))).toBe(true);
  });

  it('Retry-After on 503 delays the next attempt', async () => {
    const r = await setup({}, (index) => (index === 0 ? { status: 503, headers: { 'retry-after': '120' } } : {}));
    await subscribe(r.url);
    await emit(db(), h.clock.now());
    await runOnce();
    h.clock.advance(60_000);
    expect(await runOnce()).toBe(0);
    h.clock.advance(60_000);
    expect(await runOnce()).toBe(1);
    expect(r.received).toHaveLength(2);
  });

  it('a subscription failing for 5 days is disabled', async () => {
    const r = await setup({ webhookRetryScheduleSeconds: [86_400, 86_400, 86_400, 86_400, 86_400, 86_400] }, () => ({
      status: 500,
    }));
    const subscriptionId = await subscribe(r.url);
    await emit(db(), h.clock.now());
    for (let day = 0; day < 5; day++) {
      await runOnce();
      h.clock.advance(86_400_000);
    }
    let subscription = await db()
      .kysely.selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription.status).toBe('active');
    await runOnce();
    subscription = await db()
      .kysely.selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription.status).toBe('disabled');
    expect(subscription.disabled_reason).toMatch(/5 days/);
    expect((await deliveryRows(db()))[0]?.status).toBe('failed');
  });

  it('during a webhook secret rotation both secrets verify', async () => {
    const r = await setup();
    await subscribe(r.url);
    const rotated = await admin('POST', `/clients/${client.id}/webhook-secret`);
    const { webhookSecret } = rotated.json<{ webhookSecret: string }>();
    await emit(db(), h.clock.now());
    await runOnce();
    const request = r.received[0]!;
    verifyWebhook(
      { ...request, headers: { ...request.headers, 'x-hook-signature': request.headers['x-hook-signature'] } },
      webhookSecret,
    );
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verifyWebhook(request, client.webhookSecret)).toThrow('x-hook-signature');
  });

  it('clients see their own deliveries and can ping; another client gets 404', async () => {
    const r = await setup();
    const subscriptionId = await subscribe(r.url);
    await emit(db(), h.clock.now(), 2);
    await runOnce();
    const page = await h.as(client).get(`/api/lml/v1/subscriptions/${subscriptionId}/deliveries?limit=1`);
    expect(page.statusCode).toBe(200);
    const first = page.json<{ has_more: boolean; data: { id: string; payload: object; event: string }[] }>();
    expect(first.has_more).toBe(true);
    expect(first.data[0]).toMatchObject({
      event: 'list.updated',
      status: 'succeeded',
      payload: { type: 'updated', resource: 'list' },
    });
    const next = await h
      .as(client)
      .get(`/api/lml/v1/subscriptions/${subscriptionId}/deliveries?limit=1&starting_after=${first.data[0]!.id}`);
    expect(next.json<{ has_more: boolean; data: { id: string }[] }>()).toMatchObject({ has_more: false, data: [{}] });
    expect(next.json<{ data: { id: string }[] }>().data[0]!.id).not.toBe(first.data[0]!.id);

    // The ping is sent before the answer, which is its outcome; no worker sends it.
    const ping = await h.as(client).post(`/api/lml/v1/subscriptions/${subscriptionId}/ping`);
    expect(ping.statusCode).toBe(200);
    expect(ping.json()).toEqual({
      deliveryId: expect.stringMatching(/^dlv_/),
      ok: true,
      statusCode: 200,
      errorClass: null,
      error: null,
      durationMs: expect.any(Number),
    });
    expect(await runOnce()).toBe(0);
    const pinged = r.received[2]!;
    expect(pinged.headers['webhook-id']).toBe(ping.json<{ deliveryId: string }>().deliveryId);
    expect(pinged.headers['x-hook-event']).toBe('ping');
    expect(JSON.parse(pinged.body)).toEqual({
      type: 'ping',
      resource: 'subscription',
      identifier: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    verifyWebhook(pinged, client.webhookSecret);
    const pings = await admin('GET', `/deliveries?event=ping&subscriptionId=${subscriptionId}`);
    expect(pings.json<{ data: unknown[] }>().data).toHaveLength(1);

    const other = await createClientWithToken(h, 'Other shop');
    expect((await h.as(other).get(`/api/lml/v1/subscriptions/${subscriptionId}/deliveries`)).statusCode).toBe(404);
    expect((await h.as(other).post(`/api/lml/v1/subscriptions/${subscriptionId}/ping`)).statusCode).toBe(404);
    expect((await h.anonymous().get(`/api/lml/v1/subscriptions/${subscriptionId}/deliveries`)).statusCode).toBe(401);
    expect((await admin('GET', '/deliveries/dlv_nope')).statusCode).toBe(404);
    expect((await admin('GET', '/deliveries?event=nonsense')).statusCode).toBe(400);
  });

  it('the started worker delivers at once when the outbox commits (no poll wait)', async () => {
    const r = await setup();
    await h.as(client).post('/api/lml/v1/subscriptions', { notificationUrl: r.url, event: 'school.created' });
    const handle = h.services.startWorker({ pollIntervalMs: 60_000, onError: () => undefined });
    try {
      const started = Date.now();
      await admin('POST', '/schools', { name: 'Basisschool De Linde', type: 'PO' });
      await r.waitFor(1, 5000);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await handle.stop();
    }
  });
});
