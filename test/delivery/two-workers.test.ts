/**
 * Two workers, each with its own database connection (as two nodes would have), share 2,000
 * deliveries: every one is sent exactly once and recorded exactly once. Reports deliveries/s.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectDatabase, type Db } from '../../src/db/database.js';
import { ThreadedDeliveryQueue } from '../../src/delivery/queue-thread/client.js';
import { UndiciSender } from '../../src/delivery/sender.js';
import { DeliveryStore } from '../../src/delivery/store.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { Metrics } from '../../src/observability/metrics.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { addSubscription, countDeliveries, emit, type Receiver, startReceiver } from './support.js';

const SUBSCRIPTIONS = 10;
const EVENTS = 200;
const TOTAL = SUBSCRIPTIONS * EVENTS;

describeEachEngine('two workers on one database', (engine) => {
  const h = useHarness(engine, {
    config: { webhookAllowPrivate: true, webhookTimeoutMs: 5000 },
    options: { file: true },
  });
  let receiver: Receiver;
  const connections: Db[] = [];
  const threads: ThreadedDeliveryQueue[] = [];

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    for (const thread of threads.splice(0)) await thread.close();
    for (const db of connections.splice(0)) await db.close();
  });

  // On a SQLite file each worker may run its queue on a thread with a connection of its own (setup.ts).
  const queues = engine === 'sqlite' ? (['in-process', 'thread'] as const) : (['in-process'] as const);
  it.each(queues)(
    `share ${TOTAL} deliveries with no attempt sent twice (queue %s)`,
    async (queueKind) => {
      const client = await createClientWithToken(h);
      for (let i = 0; i < SUBSCRIPTIONS; i++)
        await addSubscription(h.database.db, client.id, `${receiver.url}/${i}`, h.clock.now());
      await emit(h.database.db, h.clock.now(), EVENTS);

      const workers = await Promise.all(
        ['one', 'two'].map(async (name) => {
          const db = await connectDatabase(h.database.url);
          connections.push(db);
          const threaded =
            queueKind === 'thread' && db.sqliteFile !== undefined
              ? new ThreadedDeliveryQueue({ sqliteFile: db.sqliteFile, sqliteCacheMib: 2 })
              : undefined;
          if (threaded !== undefined) threads.push(threaded);
          const deps = {
            store: threaded ?? new DeliveryStore(db),
            sender: new UndiciSender({ timeoutMs: 5000, allowPrivate: true }),
            clock: h.clock,
            config: h.config,
            metrics: new Metrics(),
            ownsSender: true,
          };
          return new DeliveryWorker(deps, { owner: `worker-${name}`, concurrency: 32 });
        }),
      );
      const started = performance.now();
      for (const worker of workers) worker.start();
      await receiver.waitFor(TOTAL, 60_000);
      const seconds = (performance.now() - started) / 1000;
      const deadline = Date.now() + 10_000;
      const done = (): Promise<number> => countDeliveries(h.database.db, 'succeeded');
      while ((await done()) < TOTAL && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      await Promise.all(workers.map((worker) => worker.stop()));

      expect(threads).toHaveLength(queueKind === 'thread' ? 2 : 0);
      console.log(
        `[two workers, ${engine}, queue ${queueKind}] ${TOTAL} deliveries in ${seconds.toFixed(2)} s = ${Math.round(TOTAL / seconds)} deliveries/s`,
      );
      const perId = new Map<string, number>();
      for (const request of receiver.received)
        perId.set(String(request.headers['webhook-id']), (perId.get(String(request.headers['webhook-id'])) ?? 0) + 1);
      expect(receiver.received).toHaveLength(TOTAL);
      expect(perId.size).toBe(TOTAL);
      expect([...perId.values()].every((count) => count === 1)).toBe(true);
      expect(await done()).toBe(TOTAL);
      const attempts = await h.database.db.kysely
        .selectFrom('delivery_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(attempts.n)).toBe(TOTAL);
      const owners = await h.database.db.kysely.selectFrom('deliveries').select('lease_owner').distinct().execute();
      expect(owners).toEqual([{ lease_owner: null }]);
    },
    90_000,
  );
});
