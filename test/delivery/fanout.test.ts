/**
 * Fan-out: one list published through the admin API reaches every subscriber exactly once through the
 * real worker and a real receiver, with the batched claim-ahead and group-committed completions.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ids } from '../../src/ids.js';
import { createList, createSchool, setStatus } from '../lml/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { deliveryRows, type Receiver, startReceiver, verifyWebhook } from './support.js';

const SUBSCRIBERS = 2000;

describeEachEngine('fan-out', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true } });
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await startReceiver(() => ({ status: 204 }));
  });
  afterEach(async () => {
    await receiver.close();
  });

  it(`one publish reaches ${SUBSCRIBERS} subscriptions, each exactly once, signed`, async () => {
    // Real time, so receivers' Standard Webhooks timestamp check accepts the signatures.
    h.clock.set(Date.now());
    const client = await createClientWithToken(h);
    const now = h.clock.now();
    const rows = Array.from({ length: SUBSCRIBERS }, (_, i) => ({
      id: ids.subscription(),
      client_ref: client.id,
      notification_url: `${receiver.url}?s=${i}`,
      event: 'list.published',
      event_as_given: 'list-published',
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await h.database.db.kysely
        .insertInto('subscriptions')
        .values(rows.slice(i, i + 500))
        .execute();

    const school = await createSchool(h);
    const list = await createList(h, school.identifier);
    expect((await setStatus(h, list.identifier, 'validated')).statusCode).toBe(200);
    const worker = h.services.startWorker();
    try {
      expect((await setStatus(h, list.identifier, 'published')).statusCode).toBe(200);
      await receiver.waitFor(SUBSCRIBERS, 60_000);
      // Let the last completions commit.
      const deadline = Date.now() + 10_000;
      while ((await deliveryRows(h.database.db)).some((row) => row.status !== 'succeeded') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await worker.stop();
    }

    expect(receiver.received).toHaveLength(SUBSCRIBERS);
    const targets = receiver.received.map((request) => new URL(request.url, 'http://x').searchParams.get('s'));
    expect(new Set(targets).size).toBe(SUBSCRIBERS);
    const webhookIds = new Set(receiver.received.map((request) => String(request.headers['webhook-id'])));
    expect(webhookIds.size).toBe(SUBSCRIBERS);
    expect(new Set(receiver.received.map((request) => request.body))).toEqual(
      new Set([JSON.stringify({ type: 'published', resource: 'list', identifier: list.identifier })]),
    );
    for (const request of receiver.received.slice(0, 50)) verifyWebhook(request, client.webhookSecret);

    const deliveries = await deliveryRows(h.database.db);
    expect(deliveries).toHaveLength(SUBSCRIBERS);
    expect(
      deliveries.every((row) => row.status === 'succeeded' && row.attempt_count === 1 && row.lease_owner === null),
    ).toBe(true);
    expect(new Set(deliveries.map((row) => row.id))).toEqual(webhookIds);
    const attempts = await h.database.db.kysely
      .selectFrom('delivery_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(attempts.n)).toBe(SUBSCRIBERS);
  });
});
