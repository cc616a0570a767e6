/**
 * The worker's batching must not cost a guarantee: deliveries claimed ahead of free slots are handed
 * back unsent when the worker stops, and one receiver host never sees more parallel requests than
 * WEBHOOK_CONNECTIONS_PER_HOST.
 */
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { UndiciSender } from '../../src/delivery/sender.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { addSubscription, deliveryRows, emit } from './support.js';

/** A receiver that answers 204 after `delayMs` and records the most requests it held at once. */
async function slowReceiver(
  delayMs: number,
): Promise<{ url: string; peak: () => number; count: () => number; close: () => Promise<void> }> {
  let open = 0;
  let peak = 0;
  let count = 0;
  const server: Server = createServer((request, response) => {
    open++;
    peak = Math.max(peak, open);
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        open--;
        count++;
        response.writeHead(204).end();
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    peak: () => peak,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

it('one receiver host gets at most connectionsPerHost requests at once; the rest queue and succeed', async () => {
  const receiver = await slowReceiver(40);
  const sender = new UndiciSender({ timeoutMs: 5000, allowPrivate: true, connectionsPerHost: 2 });
  try {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        sender.send({ url: `${receiver.url}?n=${i}`, headers: { 'content-type': 'application/json' }, body: '{}' }),
      ),
    );
    expect(results.map((result) => (result.kind === 'response' ? result.statusCode : result.errorClass))).toEqual(
      Array(10).fill(204),
    );
    expect(receiver.peak()).toBe(2);
  } finally {
    await sender.close();
    await receiver.close();
  }
});

describeEachEngine('delivery worker batching', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true }, client: true });

  it('rows claimed ahead of free slots are released unsent on stop, and sent once by the next worker', async () => {
    const receiver = await slowReceiver(150);
    try {
      await addSubscription(h.database.db, h.client.id, receiver.url, h.clock.now());
      await emit(h.database.db, h.clock.now(), 12);
      const first = h.services.createDeliveryWorker({ concurrency: 2, prefetch: 6, perSubscription: 100 }).start();
      // Wait until the worker has claimed ahead: 2 sending + 6 queued leases.
      const deadline = Date.now() + 5000;
      while (
        (await deliveryRows(h.database.db)).filter((row) => row.lease_owner === first.owner).length < 8 &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect((await deliveryRows(h.database.db)).filter((row) => row.lease_owner === first.owner)).toHaveLength(8);
      await first.stop();
      const afterStop = await deliveryRows(h.database.db);
      // Nothing stays leased by the stopped worker: sent rows completed, queued rows handed back.
      expect(afterStop.filter((row) => row.lease_owner !== null)).toEqual([]);
      const sentByFirst = afterStop.filter((row) => row.status === 'succeeded').length;
      expect(sentByFirst).toBe(receiver.count());

      const second = h.services.createDeliveryWorker({ concurrency: 4, perSubscription: 100 });
      while ((await second.runOnce()) > 0);
      const rows = await deliveryRows(h.database.db);
      expect(rows.every((row) => row.status === 'succeeded' && row.attempt_count === 1)).toBe(true);
      // Each delivery reached the receiver exactly once: nothing queued was sent twice.
      expect(receiver.count()).toBe(12);
    } finally {
      await receiver.close();
    }
  });
});

describeEachEngine('worker bookkeeping connections', (engine) => {
  it('on PostgreSQL leases and completions commit without waiting for the WAL flush; the outbox keeps waiting', async () => {
    const h = await createHarness(engine);
    try {
      const { db } = h.database;
      if (engine === 'sqlite') {
        expect(db.relaxed).toBeUndefined();
        return;
      }
      const setting = async (kysely: typeof db.kysely) =>
        (await sql<{ value: string }>`select current_setting('synchronous_commit') as value`.execute(kysely)).rows[0]
          ?.value;
      expect(await setting(db.kysely)).toBe('on');
      const relaxed = db.relaxed?.();
      expect(relaxed).toBeDefined();
      if (relaxed !== undefined) expect(await setting(relaxed)).toBe('off');
    } finally {
      await h.close();
    }
  });
});
