/**
 * Crash safety with real processes: `node dist/main/server.js` delivers 1,000 webhooks, is killed with
 * SIGKILL part-way, and is started again. Every delivery must arrive; the only duplicates allowed
 * are re-sends of attempts the kill left unrecorded (in flight, or finished and waiting in the
 * completion backlog for their group commit), and they carry the same webhook-id.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { ensureBuilt, startServer } from '../support/process.js';
import { until } from '../support/until.js';
import { useHarness } from '../support/use-harness.js';
import {
  addSubscription,
  countDeliveries,
  emit,
  expectOwnPayloads,
  payloadsByDelivery,
  type Receiver,
  startReceiver,
} from './support.js';

const SUBSCRIPTIONS = 10;
const EVENTS = 100;
const TOTAL = SUBSCRIPTIONS * EVENTS;
// The worker's limits, set explicitly: they make the bound on re-sends below.
const CONCURRENCY = 8;
const BACKLOG = 8;
const env = { WEBHOOK_CONCURRENCY: String(CONCURRENCY), WEBHOOK_COMPLETION_BACKLOG: String(BACKLOG) };

// The server under test is the built one, exactly as operators run it (test/support/process.ts).
beforeAll(() => ensureBuilt(), 120_000);

describeEachEngine('crash safety of the delivery worker', (engine) => {
  const h = useHarness(engine, { options: { file: true } });
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    // Slow enough that the kill lands with work both done and still to do.
    receiver = await startReceiver(() => ({ delayMs: 15 }));
  });
  afterEach(async () => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await receiver.close();
  });

  // `--role worker` on a SQLite file runs the queue on its own thread (WEBHOOK_QUEUE_THREAD=auto): the
  // kill ends the thread with its process, and the bound is the same.
  it.each(['all', 'worker'] as const)(
    `${TOTAL} deliveries survive a SIGKILL of the server (--role %s)`,
    async (role) => {
      const client = await createClientWithToken(h);
      for (let i = 0; i < SUBSCRIPTIONS; i++)
        await addSubscription(h.database.db, client.id, `${receiver.url}/${i}`, Date.now());
      // Committed before any server runs: the outbox rows are all the server has to go on.
      await emit(h.database.db, Date.now(), EVENTS);
      const payloadOf = await payloadsByDelivery(h.database.db);
      expect(payloadOf.size).toBe(TOTAL);

      const first = startServer(h.database.url, env, ['--role', role]);
      children.push(first.child);
      await first.ready;
      expect(first.output().includes('delivery queue on its own thread')).toBe(
        role === 'worker' && engine === 'sqlite',
      );
      await until(() => receiver.received.length >= TOTAL / 4, 'a quarter of the deliveries', 20_000);
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      const atKill = new Set(receiver.received.map((request) => String(request.headers['webhook-id']))).size;
      expect(atKill).toBeLessThan(TOTAL);

      const second = startServer(h.database.url, env, ['--role', role]);
      children.push(second.child);
      await second.ready;
      const distinct = (): number =>
        new Set(receiver.received.map((request) => String(request.headers['webhook-id']))).size;
      await until(() => distinct() === TOTAL, `all ${TOTAL} deliveries (have ${distinct()})`, 30_000);
      const succeeded = (): Promise<number> => countDeliveries(h.database.db, 'succeeded');
      await until(async () => (await succeeded()) === TOTAL, 'every delivery recorded as succeeded', 10_000);
      second.child.kill('SIGTERM');
      const [code] = (await once(second.child, 'exit')) as [number | null];
      expect(code).toBe(0);

      expectOwnPayloads(receiver.received, payloadOf);
      const duplicates = receiver.received.length - TOTAL;
      console.log(
        `[crash, ${engine}, --role ${role}] ${atKill} delivered before SIGKILL, ${TOTAL} after restart, ${duplicates} duplicate(s) (same webhook-id)`,
      );
      // Only attempts the kill left unrecorded can repeat: at most those in flight plus the completion backlog.
      expect(duplicates).toBeLessThanOrEqual(CONCURRENCY + BACKLOG);
    },
    90_000,
  );
});
