/**
 * Revoking a client ends everything that acts for it, in the revoke's transaction: its subscriptions
 * (for good), its waiting deliveries (cancelled, kept in the log), its portal sessions and links, and
 * a long-poll that was waiting on its token. Nothing brings its webhooks back. Over a real socket to
 * a real receiver; the clock is injected.
 */
import { afterEach, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { addSubscription, emit, type Receiver, type Reply, startReceiver } from '../delivery/support.js';
import { createSchool, FEED, readFeed } from '../events/feed-support.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createClientWithToken, createHarness, type Harness, type TestClient } from '../support/harness.js';
import { until } from '../support/until.js';

const ADMIN = '/api/admin/v1';

describeEachEngine('revoking a client', (engine) => {
  let h: Harness;
  let worker: DeliveryWorker;
  const receivers: Receiver[] = [];

  const setup = async (): Promise<void> => {
    h = await createHarness(engine, {
      webhookAllowPrivate: true,
      // Retries ten minutes apart (no jitter with random 0.5), so a failed delivery waits as a retry.
      webhookRetryScheduleSeconds: [600, 600, 600],
      webhookTimeoutMs: 5000,
    });
    h.clock.set(Date.now());
    worker = h.services.createDeliveryWorker({ random: () => 0.5, onError: () => undefined });
  };
  const receiver = async (respond?: (index: number) => Reply): Promise<Receiver> => {
    const started = await startReceiver((_request, index) => respond?.(index) ?? {});
    receivers.push(started);
    return started;
  };
  const revoke = (client: TestClient) => h.asAdmin().delete(`${ADMIN}/clients/${client.id}`);
  /**
   * One delivery to a receiver that answers `status` only when released, the client revoked while the
   * worker's attempt waits for that answer; `finish` releases it and waits for the attempt's end.
   */
  const revokedMidAttempt = async (status: number) => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = await receiver(() => ({ status, after: held }));
    const shop = await createClientWithToken(h, 'Shop');
    const subscriptionId = await addSubscription(h.database.db, shop.id, slow.url, h.clock.now());
    await emit(h.database.db, h.clock.now());
    const attempting = worker.runOnce();
    await slow.waitFor(1);
    expect((await revoke(shop)).statusCode).toBe(204);
    return {
      slow,
      subscriptionId,
      finish: async () => {
        release();
        await attempting;
      },
    };
  };
  /** The id of the subscription's newest delivery, as the admin log lists it. */
  const firstDeliveryOf = async (subscriptionId: string) => {
    const page = await h.asAdmin().get(`${ADMIN}/deliveries`, { query: { subscriptionId } });
    return page.json<{ data: { id: string }[] }>().data[0]?.id;
  };
  const deliveriesOf = (subscriptionId: string) =>
    h.database.db.kysely
      .selectFrom('deliveries')
      .select(['status', 'attempt_count'])
      .where('subscription_id', '=', subscriptionId)
      .orderBy('created_at')
      .execute();
  const revokedRecord = async (client: TestClient) => {
    const query = { action: 'client.revoked', targetId: client.id };
    const page = await h.asAdmin().get(`${ADMIN}/audit`, { query });
    return page.json<{ data: { changes: unknown }[] }>().data[0];
  };

  afterEach(async () => {
    await worker.stop();
    for (const started of receivers.splice(0)) await started.close();
    await h.close();
  });

  it('ends its subscriptions and cancels what waits, in one transaction; nothing is sent afterwards', async () => {
    await setup();
    const failing = await receiver(() => ({ status: 500 }));
    const healthy = await receiver();
    const shop = await createClientWithToken(h, 'Shop');
    const other = await createClientWithToken(h, 'Other shop');
    const retrying = await addSubscription(h.database.db, shop.id, failing.url, h.clock.now());
    const fresh = await addSubscription(h.database.db, shop.id, healthy.url, h.clock.now());
    const others = await addSubscription(h.database.db, other.id, healthy.url, h.clock.now());
    await emit(h.database.db, h.clock.now());
    await worker.runOnce(); // the failing receiver's delivery now waits as a retry; the others succeeded
    expect(healthy.received).toHaveLength(2);
    await emit(h.database.db, h.clock.now()); // a first attempt waiting for the worker

    expect((await revoke(shop)).statusCode).toBe(204);

    const subscription = await h.asAdmin().get(`${ADMIN}/subscriptions/${retrying}`);
    expect(subscription.json()).toMatchObject({ id: retrying, status: 'revoked', revokedReason: 'client-revoked' });
    expect(subscription.json()).not.toHaveProperty('disabledReason');
    expect(await deliveriesOf(retrying)).toEqual([
      { status: 'cancelled', attempt_count: 1 },
      { status: 'cancelled', attempt_count: 0 },
    ]);
    expect(await deliveriesOf(fresh)).toEqual([
      { status: 'succeeded', attempt_count: 1 },
      { status: 'cancelled', attempt_count: 0 },
    ]);
    expect((await revokedRecord(shop))?.changes).toEqual({
      status: { before: 'active', after: 'revoked' },
      subscriptionsEnded: { before: null, after: 2 },
      deliveriesCancelled: { before: null, after: 3 },
      portalSessionsEnded: { before: null, after: 0 },
      portalLinksVoided: { before: null, after: 0 },
    });

    // Later events and due times reach only the other client.
    await emit(h.database.db, h.clock.now());
    h.clock.advance(3_600_000);
    await worker.runOnce();
    expect(failing.received).toHaveLength(1);
    expect(healthy.received.map((request) => request.url)).toHaveLength(4);
    expect(await deliveriesOf(others)).toEqual([
      { status: 'succeeded', attempt_count: 1 },
      { status: 'succeeded', attempt_count: 1 },
      { status: 'succeeded', attempt_count: 1 },
    ]);
    expect((await deliveriesOf(fresh)).map((row) => row.status)).toEqual(['succeeded', 'cancelled']);

    // The log and its filter show them; the overview counts no waiting delivery.
    const cancelled = await h.asAdmin().get(`${ADMIN}/deliveries`, { query: { status: 'cancelled' } });
    expect(cancelled.json<{ data: { status: string }[] }>().data).toHaveLength(3);
    const revokedOnly = await h.asAdmin().get(`${ADMIN}/subscriptions`, { query: { status: 'revoked' } });
    expect(
      revokedOnly
        .json<{ data: { id: string }[] }>()
        .data.map((row) => row.id)
        .sort(),
    ).toEqual([retrying, fresh].sort());
  });

  it('records the answer of an attempt under way when the revoke commits, and sends no retry', async () => {
    await setup();
    const { slow, subscriptionId, finish } = await revokedMidAttempt(503);
    // Leased by the worker: the revoke leaves it to the attempt, whose answer is still to come.
    expect(await deliveriesOf(subscriptionId)).toEqual([{ status: 'pending', attempt_count: 0 }]);
    await finish();

    expect(await deliveriesOf(subscriptionId)).toEqual([{ status: 'cancelled', attempt_count: 1 }]);
    const detail = await h.asAdmin().get(`${ADMIN}/deliveries/${await firstDeliveryOf(subscriptionId)}`);
    expect(detail.json()).toMatchObject({
      status: 'cancelled',
      attemptCount: 1,
      lastStatusCode: 503,
      attempts: [{ attemptNo: 1, statusCode: 503, errorClass: 'http' }],
    });
    h.clock.advance(3_600_000);
    await worker.runOnce();
    expect(slow.received).toHaveLength(1);
  });

  it('a success under way when the revoke commits is recorded as the success it was', async () => {
    await setup();
    const { subscriptionId, finish } = await revokedMidAttempt(200);
    await finish();
    expect(await deliveriesOf(subscriptionId)).toEqual([{ status: 'succeeded', attempt_count: 1 }]);
  });

  it('nothing revives it: enable, recover, recover-failed, replay, retry and send-now answer 409 client-revoked', async () => {
    await setup();
    const failing = await receiver(() => ({ status: 500 }));
    const shop = await createClientWithToken(h, 'Shop');
    const subscriptionId = await addSubscription(h.database.db, shop.id, failing.url, h.clock.now());
    await emit(h.database.db, h.clock.now());
    await worker.runOnce();
    const deliveryId = await firstDeliveryOf(subscriptionId);
    expect((await revoke(shop)).statusCode).toBe(204);

    const admin = h.asAdmin();
    const attempts = [
      await admin.post(`${ADMIN}/subscriptions/${subscriptionId}/enable`),
      await admin.post(`${ADMIN}/subscriptions/${subscriptionId}/recover`, { since: '2020-01-01T00:00:00Z' }),
      await admin.post(`${ADMIN}/subscriptions/${subscriptionId}/recover-failed`),
      await admin.post(`${ADMIN}/subscriptions/${subscriptionId}/replay`, { from: '2020-01-01T00:00:00Z' }),
      await admin.post(`${ADMIN}/deliveries/${deliveryId}/retry`),
      await admin.post(`${ADMIN}/deliveries/${deliveryId}/send-now`),
    ];
    for (const answer of attempts) {
      expect(answer.statusCode).toBe(409);
      expect(answer.json()).toMatchObject({ code: 'client-revoked', title: 'The client is revoked' });
    }
    expect(attempts[0]?.json<{ detail: string }>().detail).toBe(
      `subscription ${subscriptionId} belongs to a revoked client; nothing is sent to it any more`,
    );
    expect((await h.asAdmin().get(`${ADMIN}/subscriptions/${subscriptionId}`)).json()).toMatchObject({
      status: 'revoked',
    });
    expect((await deliveriesOf(subscriptionId)).map((row) => row.status)).toEqual(['cancelled']);
    h.clock.advance(3_600_000);
    await worker.runOnce();
    expect(failing.received).toHaveLength(1);
    // A new subscription for it is refused too.
    const created = await admin.post(`${ADMIN}/subscriptions`, {
      clientId: shop.clientId,
      notificationUrl: failing.url,
      event: 'list.created',
    });
    expect(created.statusCode).toBe(409);
  });

  it('its portal sessions and unused links end with it', async () => {
    await setup();
    const shop = await createClientWithToken(h, 'Shop');
    const link = await h.asAdmin().post(`${ADMIN}/clients/${shop.id}/portal-link`);
    const used = await h.asAdmin().post(`${ADMIN}/clients/${shop.id}/portal-link`);
    const token = (answer: typeof link) => answer.json<{ path: string }>().path.split('#')[1];
    const signIn = (value: string | undefined) => h.anonymous().post('/portal/api/sign-in', { token: value });
    const session = await signIn(token(used));
    expect(session.statusCode).toBe(200);
    const cookie = String(session.headers['set-cookie']).split(';')[0] ?? '';

    expect((await revoke(shop)).statusCode).toBe(204);

    expect((await signIn(token(link))).statusCode).toBe(401);
    const me = await h.anonymous().get('/portal/api/session', { headers: { cookie } });
    expect(me.json()).toEqual({ signedIn: false });
    const left = await h.database.db.kysely
      .selectFrom('web_sessions')
      .select('id_hash')
      .where('client_ref', '=', shop.id)
      .execute();
    expect(left).toEqual([]);
    expect((await revokedRecord(shop))?.changes).toMatchObject({
      portalSessionsEnded: { before: null, after: 1 },
      portalLinksVoided: { before: null, after: 1 },
    });
  });

  it("the token endpoint tells the secret's holder the client is revoked; a wrong secret learns nothing", async () => {
    await setup();
    const shop = await createClientWithToken(h, 'Shop');
    expect((await revoke(shop)).statusCode).toBe(204);
    const right = await h
      .anonymous()
      .get('/api/auth/token', { headers: { authorization: basic(shop.clientId, shop.clientSecret) } });
    expect(right.statusCode).toBe(401);
    expect(right.json()).toEqual({
      error: 'invalid_client',
      error_description: 'this client was revoked by the operator; it gets no tokens any more',
    });
    const wrong = await h
      .anonymous()
      .get('/api/auth/token', { headers: { authorization: basic(shop.clientId, 'sms_wrong') } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed: wrong client id or secret',
    });
  });

  it('the client list filters by status', async () => {
    await setup();
    await createClientWithToken(h, 'Kept');
    const gone = await createClientWithToken(h, 'Gone');
    await revoke(gone);
    const names = async (status: string) =>
      (await h.asAdmin().get(`${ADMIN}/clients`, { query: { status } }))
        .json<{ data: { name: string; status: string }[] }>()
        .data.map((client) => `${client.name}:${client.status}`);
    expect(await names('revoked')).toEqual(['Gone:revoked']);
    expect(await names('active')).toEqual(['Kept:active']);
    const bad = await h.asAdmin().get(`${ADMIN}/clients`, { query: { status: 'gone' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'validation-failed' });
  });

  for (const change of ['revoke', 'secret reset'] as const)
    it(`a long-poll waiting when its client's ${change} commits answers 401, not the event after it`, async () => {
      await setup();
      const reader = await createClientWithToken(h, 'Reader', ['lml:read']);
      const start = await readFeed(h, reader);
      const held = h.as(reader).get(FEED, { query: { after: start.next, wait: '10' } });
      await until(() => h.services.eventFeed.waiters.waiting === 1, 'the request waits');
      const done =
        change === 'revoke' ? await revoke(reader) : await h.asAdmin().post(`${ADMIN}/clients/${reader.id}/secret`);
      expect(done.statusCode).toBe(change === 'revoke' ? 204 : 200);
      await createSchool(h, 'Alfa College');
      const answer = await held;
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toMatchObject({ code: 'invalid-token' });
    });
});
