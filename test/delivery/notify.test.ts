/**
 * Several nodes on one PostgreSQL: a change committed on an API node wakes the worker of another node
 * through LISTEN/NOTIFY at once, not at its next poll. (SQLite has one host, so no listener.)
 */
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/database.js';
import { createWorkerServices } from '../../src/main/services.js';
import { describeEachEngine, freshDatabase } from '../support/engines.js';
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
      // A second node on the same database and clock, with connections of its own, running only a
      // worker that polls once a minute.
      const otherDb = await connectDatabase(h.database.url);
      const workerNode = createWorkerServices({ config: h.config, db: otherDb, clock: h.clock });
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
        await otherDb.close();
      }
    },
  );
});

describeEachEngine('a node and its own notifications', (engine) => {
  it(
    engine === 'postgres'
      ? 'a listener skips what its own handle notified (the outbox woke it already) and hears every other sender'
      : 'SQLite: no notifications, so no origin to tell them apart',
    async () => {
      const database = await freshDatabase(engine);
      if (engine === 'sqlite') {
        expect(database.db.origin).toBeUndefined();
        expect(database.db.listen).toBeUndefined();
        await database.drop();
        return;
      }
      const other = await connectDatabase(database.url);
      const heard: string[] = [];
      const stop = await database.db.listen?.('shelfmark_test_echo', () => heard.push('notified'));
      try {
        expect(database.db.origin).toMatch(/^[0-9a-f-]{36}$/);
        expect(other.origin).not.toBe(database.db.origin);
        await sql`select pg_notify('shelfmark_test_echo', ${database.db.origin ?? ''})`.execute(database.db.kysely);
        await sql`select pg_notify('shelfmark_test_echo', ${other.origin ?? ''})`.execute(other.kysely);
        await sql`select pg_notify('shelfmark_test_echo', '')`.execute(database.db.kysely);
        const deadline = Date.now() + 5000;
        while (heard.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        // One more round trip on the listener's channel: a late echo would have arrived by now.
        await sql`select pg_notify('shelfmark_test_echo', ${other.origin ?? ''})`.execute(other.kysely);
        while (heard.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(heard).toEqual(['notified', 'notified', 'notified']);
      } finally {
        await stop?.();
        await other.close();
        await database.drop();
      }
    },
  );
});
