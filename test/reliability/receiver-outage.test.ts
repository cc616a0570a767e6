/**
 * Receiver outage: the receiver refuses connections for a while (nothing listens on its port), then
 * comes back. Every delivery then succeeds, and every attempt, failed or not, is recorded in order.
 * The real undici sender over real sockets; a manual clock drives the retry schedule without sleeping.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { addSubscription, attemptRows, deliveryRows, emit } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { freePort } from '../support/free-port.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

// Four subscriptions of ten events each: a claim takes at most 16 rows per subscription.
const SUBSCRIPTIONS = 4;
const EVENTS = 40;
const OUTAGE_ROUNDS = 3;

describeEachEngine('receiver outage', (engine) => {
  const h = useHarness(engine, {
    config: {
      webhookAllowPrivate: true,
      webhookRetryScheduleSeconds: [1, 1, 1, 1, 1, 1],
      webhookTimeoutMs: 2000,
      webhookConcurrency: 64,
      webhookConnectionsPerHost: 64,
    },
  });
  let receiver: Server | undefined;
  beforeEach(async () => {
    h.clock.set(Date.now());
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
  });

  it(`${EVENTS} deliveries through ${OUTAGE_ROUNDS} refused rounds, then all succeed with every attempt recorded`, async () => {
    const port = await freePort();
    const client = await createClientWithToken(h);
    for (let i = 0; i < SUBSCRIPTIONS; i++)
      await addSubscription(h.database.db, client.id, `http://127.0.0.1:${port}/hooks/${i}`, h.clock.now());
    await emit(h.database.db, h.clock.now(), EVENTS / SUBSCRIPTIONS);
    const worker = h.services.createDeliveryWorker({ random: () => 0.5, onError: () => undefined });
    try {
      for (let round = 0; round < OUTAGE_ROUNDS; round++) {
        expect(await worker.runOnce()).toBe(EVENTS);
        h.clock.advance(2000);
      }
      // The receiver comes back on the same port.
      let received = 0;
      receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          received++;
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver?.listen(port, '127.0.0.1', resolve));
      expect(await worker.runOnce()).toBe(EVENTS);
      expect(received).toBe(EVENTS);
    } finally {
      await worker.stop();
    }
    const deliveries = await deliveryRows(h.database.db);
    expect(deliveries.map((row) => row.status)).toEqual(Array.from({ length: EVENTS }, () => 'succeeded'));
    for (const delivery of deliveries) {
      const attempts = await attemptRows(h.database.db, delivery.id);
      expect(attempts.map((a) => a.attempt_no)).toEqual([1, 2, 3, 4]);
      expect(attempts.map((a) => a.error_class)).toEqual(['connect', 'connect', 'connect', null]);
      expect(attempts.map((a) => a.status_code)).toEqual([null, null, null, 200]);
    }
  });
});
