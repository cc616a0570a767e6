/**
 * Where a started worker's queue runs (WEBHOOK_QUEUE_THREAD): on a thread of its own only in a
 * worker-only process on a SQLite file; beside the API, on an in-memory database, on PostgreSQL or
 * with `off`, on the event loop. Either way the worker delivers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { addSubscription, countDeliveries, emit, type Receiver, startReceiver } from './support.js';

describe('where a started worker runs its queue', () => {
  let h: Harness | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    await h?.close();
    h = undefined;
    receiver = undefined;
  });

  const placements: [string, Partial<Config>, { file: boolean }, boolean, boolean][] = [
    ['worker-only process, SQLite file', {}, { file: true }, true, true],
    ['beside the API, SQLite file', {}, { file: true }, false, false],
    ['worker-only process, in-memory SQLite', {}, { file: false }, true, false],
    [
      'worker-only process, SQLite file, WEBHOOK_QUEUE_THREAD=off',
      { webhookQueueThread: 'off' },
      { file: true },
      true,
      false,
    ],
  ];
  it.each(placements)('%s', async (_, overrides, options, workerOnly, onThread) => {
    const started = await createHarness('sqlite', { webhookAllowPrivate: true, ...overrides }, options);
    h = started;
    receiver = await startReceiver();
    const client = await createClientWithToken(started);
    await addSubscription(started.database.db, client.id, receiver.url, started.clock.now());
    await emit(started.database.db, started.clock.now(), 5);
    const worker = started.services.startWorker({ pollIntervalMs: 20 }, { workerOnly });
    try {
      expect(worker.queueOnThread).toBe(onThread);
      await receiver.waitFor(5, 10_000);
    } finally {
      // stop() waits for the attempts sent to be recorded (their group commit) before it settles.
      await worker.stop();
    }
    expect(await countDeliveries(started.database.db, 'succeeded')).toBe(5);
    expect(receiver.received).toHaveLength(5);
  });
});
