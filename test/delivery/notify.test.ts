/**
 * Several nodes on one PostgreSQL: a change committed on an API node wakes the worker of another node
 * through LISTEN/NOTIFY at once, not at its next poll. (SQLite has one host, so no listener.)
 */
import { afterEach, expect, it } from 'vitest';
import { createWorkerServices } from '../../src/services.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { addSubscription, type Receiver, startReceiver } from './support.js';

describeEachEngine('waking workers across nodes', (engine) => {
  let h: Harness | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    await h?.close();
  });

  it(
    engine === 'postgres'
      ? 'a commit on one node wakes the worker of another within a fraction of its poll interval'
      : 'SQLite offers no cross-process listener',
    async () => {
      h = await createHarness(engine, { webhookAllowPrivate: true });
      if (engine === 'sqlite') {
        expect(h.database.db.listen).toBeUndefined();
        return;
      }
      h.clock.set(Date.now());
      receiver = await startReceiver();
      const client = await createClientWithToken(h);
      await addSubscription(h.database.db, client.id, receiver.url, h.clock.now(), 'school.created');
      // A second node on the same database and clock, running only a worker that polls once a minute.
      const workerNode = createWorkerServices({ config: h.config, db: h.database.db, clock: h.clock });
      const worker = workerNode.startWorker({ pollIntervalMs: 60_000 });
      try {
        await worker.listening;
        const started = Date.now();
        const created = await h.asAdmin().post('/api/admin/v1/schools', { name: 'Het Lyceum', type: 'VO' });
        expect(created.statusCode).toBe(201);
        await receiver.waitFor(1, 5000);
        expect(Date.now() - started).toBeLessThan(5000);
        expect(JSON.parse(receiver.received[0]?.body ?? '{}')).toEqual({
          type: 'created',
          resource: 'school',
          identifier: created.json().identifier,
        });
      } finally {
        await worker.stop();
      }
    },
  );
});
