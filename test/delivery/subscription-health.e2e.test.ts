/**
 * Subscribers told before they are cut off: subscription.failing after SUBSCRIPTION_FAILING_AFTER_SECONDS
 * of failures (once per failing period) and subscription.disabled on a 410, delivered over real sockets
 * to the same client's other subscriptions to them — never to the failing one, never to another client.
 * The clock is injected: hours pass in `advance`, nobody sleeps.
 */
import { createHmac } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { addSubscription, emit, type Received, type Receiver, type Reply, startReceiver } from './support.js';

type Client = Awaited<ReturnType<typeof createClientWithToken>>;

const MINUTE = 60_000;

/**
 * Both signatures of a webhook, checked by hand: the Standard Webhooks library compares
 * webhook-timestamp with the real time, and these requests were signed hours ahead on the test clock.
 */
function expectSigned(request: Received, secret: string): void {
  const hmac = (key: Buffer, data: string): string => createHmac('sha256', key).update(data).digest('base64');
  expect(request.headers['x-hook-signature']).toBe(hmac(Buffer.from(secret, 'utf8'), request.body));
  const signed = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  expect(String(request.headers['webhook-signature']).split(' ')).toContain(`v1,${hmac(key, signed)}`);
}

const payload = (type: string, identifier: string): string =>
  JSON.stringify({ type, resource: 'subscription', identifier });

describeEachEngine('subscription.failing and subscription.disabled', (engine) => {
  let h: Harness;
  let worker: DeliveryWorker | undefined;
  const receivers: Receiver[] = [];

  const setup = async (overrides: Partial<Config> = {}): Promise<void> => {
    h = await createHarness(engine, {
      webhookAllowPrivate: true,
      // Ten retries ten minutes apart (no jitter with random 0.5): the deliveries stay pending for hours.
      webhookRetryScheduleSeconds: Array.from({ length: 10 }, () => 600),
      webhookTimeoutMs: 2000,
      subscriptionFailingAfterSeconds: 3600,
      ...overrides,
    });
    h.clock.set(Date.now());
    worker = h.services.createDeliveryWorker({ random: () => 0.5, onError: () => undefined });
  };
  const receiver = async (respond: () => Reply = () => ({})): Promise<Receiver> => {
    const started = await startReceiver(() => respond());
    receivers.push(started);
    return started;
  };
  const db = () => h.database.db;
  const subscribe = (client: Client, url: string, event: string) =>
    addSubscription(db(), client.id, url, h.clock.now(), event);
  const runOnce = () => worker?.runOnce() ?? Promise.resolve(0);
  /**
   * A shop's list.updated subscription at a receiver answering `respond`; the shop's watcher, told of
   * `toldOf` and listening to `alsoListening` as well; another client's stranger, also told of `toldOf`.
   */
  const watchedSubject = async (respond: () => Reply, toldOf: string, alsoListening: string) => {
    const subjectReceiver = await receiver(respond);
    const watcher = await receiver();
    const stranger = await receiver();
    const shop = await createClientWithToken(h, 'Shop');
    const other = await createClientWithToken(h, 'Other shop');
    const subject = await subscribe(shop, subjectReceiver.url, 'list.updated');
    const told = await subscribe(shop, watcher.url, toldOf);
    await subscribe(shop, watcher.url, alsoListening);
    await subscribe(other, stranger.url, toldOf);
    return { subjectReceiver, watcher, stranger, shop, subject, told };
  };
  /** Advances the test clock and runs the worker once per step. */
  const every = async (stepMs: number, steps: number): Promise<void> => {
    for (let i = 0; i < steps; i++) {
      h.clock.advance(stepMs);
      await runOnce();
    }
  };
  /** (subscription, identifier) of every delivery of a subscription.* event. */
  const healthDeliveries = async () =>
    db()
      .kysely.selectFrom('deliveries')
      .innerJoin('events', 'events.id', 'deliveries.event_id')
      .select(['deliveries.subscription_id', 'events.name', 'events.identifier'])
      .where('events.resource', '=', 'subscription')
      .orderBy('deliveries.created_at')
      .execute();

  afterEach(async () => {
    await worker?.stop();
    for (const started of receivers.splice(0)) await started.close();
    await h.close();
  });

  it('failing after the threshold, once per failing period, and again after a success and new failures', async () => {
    await setup();
    let healthy = false;
    const {
      subjectReceiver: failing,
      watcher,
      stranger,
      shop,
      subject,
      told,
    } = await watchedSubject(() => ({ status: healthy ? 200 : 500 }), 'subscription.failing', 'subscription.disabled');

    await emit(db(), h.clock.now());
    await runOnce(); // the first failure: failing since now
    await every(10 * MINUTE, 5); // 50 minutes of failures: not yet
    expect(watcher.received).toHaveLength(0);
    await every(10 * MINUTE, 1); // an hour: announced in the same transaction as the failure
    await runOnce();
    expect(watcher.received.map((request) => request.body)).toEqual([payload('failing', subject)]);
    const [announcement] = watcher.received;
    expect(announcement?.headers['x-hook-event']).toBe('subscription.failing');
    expectSigned(announcement as Received, shop.webhookSecret);

    await every(10 * MINUTE, 3); // still failing: not announced twice
    expect(watcher.received).toHaveLength(1);

    healthy = true;
    await every(10 * MINUTE, 1); // a success ends the failing period
    expect(failing.received.at(-1)?.headers['x-hook-event']).toBe('list.updated');
    healthy = false;
    await emit(db(), h.clock.now());
    await runOnce(); // a new failing period begins
    await every(10 * MINUTE, 5);
    expect(watcher.received).toHaveLength(1);
    await every(10 * MINUTE, 1);
    await runOnce();
    expect(watcher.received.map((request) => request.body)).toEqual([
      payload('failing', subject),
      payload('failing', subject),
    ]);

    expect(stranger.received).toHaveLength(0);
    expect(failing.received.every((request) => request.headers['x-hook-event'] === 'list.updated')).toBe(true);
    expect(await healthDeliveries()).toEqual([
      { subscription_id: told, name: 'subscription.failing', identifier: subject },
      { subscription_id: told, name: 'subscription.failing', identifier: subject },
    ]);
  });

  it('a failed Retry now announces subscription.failing when due, as a scheduled failure does, once', async () => {
    // Two hours between scheduled attempts: the delivery waits for its next one while Retry now is pressed.
    await setup({ webhookRetryScheduleSeconds: [7200, 7200, 7200] });
    const failing = await receiver(() => ({ status: 500 }));
    const watcher = await receiver();
    const shop = await createClientWithToken(h, 'Shop');
    const subject = await subscribe(shop, failing.url, 'list.updated');
    const told = await subscribe(shop, watcher.url, 'subscription.failing');
    await emit(db(), h.clock.now());
    await runOnce(); // the first failure: failing since now, the next attempt in two hours
    const [pending] = await db()
      .kysely.selectFrom('deliveries')
      .select('id')
      .where('subscription_id', '=', subject)
      .execute();
    const retryNow = () => h.asAdmin().post(`/api/admin/v1/deliveries/${pending?.id}/send-now`);

    h.clock.advance(30 * MINUTE); // failing for half an hour: a failed Retry now announces nothing yet
    expect((await retryNow()).json()).toMatchObject({ status: 'pending', lastStatusCode: 500 });
    expect(await healthDeliveries()).toEqual([]);

    h.clock.advance(31 * MINUTE); // past the hour: this failed Retry now announces it
    expect((await retryNow()).json()).toMatchObject({ status: 'pending', lastStatusCode: 500 });
    expect(await healthDeliveries()).toEqual([
      { subscription_id: told, name: 'subscription.failing', identifier: subject },
    ]);
    await runOnce();
    expect(watcher.received.map((request) => request.body)).toEqual([payload('failing', subject)]);
    expectSigned(watcher.received[0] as Received, shop.webhookSecret);

    h.clock.advance(MINUTE); // the same failing period: not announced twice
    expect((await retryNow()).statusCode).toBe(202);
    expect(await healthDeliveries()).toHaveLength(1);
    expect(failing.received).toHaveLength(4);
  });

  it('disabled on a 410, told to the other subscriptions with the reason on the record', async () => {
    await setup();
    const { watcher, stranger, shop, subject, told } = await watchedSubject(
      () => ({ status: 410 }),
      'subscription.disabled',
      'subscription.failing',
    );

    await emit(db(), h.clock.now());
    await runOnce();
    await runOnce();
    expect(watcher.received.map((request) => request.body)).toEqual([payload('disabled', subject)]);
    expect(watcher.received[0]?.headers['x-hook-event']).toBe('subscription.disabled');
    expectSigned(watcher.received[0] as Received, shop.webhookSecret);
    expect(stranger.received).toHaveLength(0);
    expect(await healthDeliveries()).toEqual([
      { subscription_id: told, name: 'subscription.disabled', identifier: subject },
    ]);

    // What the receiver fetches: the subscription, with the reason.
    const fetched = await h.as(shop).get(`/api/lml/v1/subscriptions/${subject}`);
    expect(fetched.json()).toMatchObject({ status: 'disabled', disabledReason: 'the receiver answered 410 Gone' });
  });

  it('never to the subscription it is about, even when that one listens to these events', async () => {
    await setup();
    const broken = await receiver(() => ({ status: 500 }));
    const gone = await receiver(() => ({ status: 410 }));
    const watcher = await receiver();
    const shop = await createClientWithToken(h, 'Shop');
    const first = await subscribe(shop, broken.url, 'list.updated');
    // Listens to subscription.failing, and its own receiver fails too.
    const second = await subscribe(shop, broken.url, 'subscription.failing');
    // Listens to subscription.disabled, and its receiver is gone.
    const third = await subscribe(shop, gone.url, 'subscription.disabled');
    const fourth = await subscribe(shop, watcher.url, 'subscription.failing');
    const fifth = await subscribe(shop, watcher.url, 'subscription.disabled');

    await emit(db(), h.clock.now());
    await runOnce();
    await every(10 * MINUTE, 6); // `first` has failed for an hour: second and fourth are told
    await runOnce(); // second fails (its period begins), fourth receives
    await every(10 * MINUTE, 6); // `second` has failed for an hour: only fourth is told
    await runOnce();
    expect(watcher.received.map((request) => request.body)).toEqual([
      payload('failing', first),
      payload('failing', second),
    ]);

    // A second list.updated subscription to the gone receiver: its 410 tells third, whose 410 tells fifth.
    const sixth = await subscribe(shop, gone.url, 'list.updated');
    await emit(db(), h.clock.now());
    await runOnce();
    await runOnce();
    await runOnce();
    expect(watcher.received.slice(2).map((request) => request.body)).toEqual([
      payload('disabled', sixth),
      payload('disabled', third),
    ]);
    const deliveries = await healthDeliveries();
    expect(deliveries.filter((row) => row.subscription_id === row.identifier)).toEqual([]);
    const told = (name: string, about: string, to: string) => `${name} about ${about} to ${to}`;
    expect(deliveries.map((row) => told(row.name, row.identifier, row.subscription_id)).sort()).toEqual(
      [
        told('subscription.failing', first, second),
        told('subscription.failing', first, fourth),
        told('subscription.failing', second, fourth),
        told('subscription.disabled', sixth, third),
        told('subscription.disabled', sixth, fifth),
        told('subscription.disabled', third, fifth),
      ].sort(),
    );
  });
});
