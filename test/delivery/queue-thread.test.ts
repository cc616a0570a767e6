/**
 * The delivery queue on a thread of its own (SQLite files): each operation reaches the same rows as
 * the in-process store, over the thread's own connection; a thread that cannot start fails its calls
 * with the cause; close() answers what was asked before it ends the thread.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreadedDeliveryQueue } from '../../src/delivery/queue-thread/client.js';
import type { ClaimOptions } from '../../src/delivery/store.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { addSubscription, attemptRows, deliveryRows, emit } from './support.js';

const LEASE_MS = 60_000;

describe('the delivery queue on its own thread (SQLite file)', () => {
  const h = useHarness('sqlite', { options: { file: true } });
  let queue: ThreadedDeliveryQueue;

  beforeEach(async () => {
    const sqliteFile = h.database.db.sqliteFile;
    if (sqliteFile === undefined) throw new Error('the harness database is not a file');
    queue = new ThreadedDeliveryQueue({ sqliteFile, sqliteCacheMib: 2 });
  });
  afterEach(async () => {
    await queue.close();
  });

  const claimOptions = (): ClaimOptions => ({
    owner: 'thread-worker',
    now: h.clock.now(),
    leaseMs: LEASE_MS,
    limit: 10,
    perSubscription: 10,
    held: new Map(),
    lane: 'first',
    reach: 'window',
  });

  it('claims with the send context, completes, releases and abandons the rows of the shared file', async () => {
    const client = await createClientWithToken(h);
    const subscriptionId = await addSubscription(h.database.db, client.id, 'https://hooks.example/in', h.clock.now());
    await emit(h.database.db, h.clock.now(), 3);
    const created = await deliveryRows(h.database.db);

    const { contexts, orphans } = await queue.claimToSend(claimOptions());
    expect(orphans).toEqual([]);
    expect(contexts.map((context) => context.id).sort()).toEqual(created.map((row) => row.id).sort());
    for (const context of contexts) {
      expect(context).toMatchObject({
        attemptCount: 0,
        eventName: 'list.updated',
        subscriptionId,
        subscriptionStatus: 'active',
        notificationUrl: 'https://hooks.example/in',
      });
      // The client's own webhook secret, and nothing else of the client, crosses to the worker's thread.
      expect(context.secrets).toEqual({ current: client.webhookSecret, previous: null, previousUntil: null });
    }
    expect((await deliveryRows(h.database.db)).map((row) => [row.lease_owner, row.lease_until])).toEqual(
      created.map(() => ['thread-worker', h.clock.now() + LEASE_MS]),
    );

    const [sent, released, abandoned] = created.map((row) => row.id);
    if (sent === undefined || released === undefined || abandoned === undefined) throw new Error('3 deliveries');
    const now = h.clock.now() + 40;
    const results = await queue.completeMany([
      {
        id: sent,
        owner: 'thread-worker',
        subscriptionId,
        now,
        attempt: {
          attemptNo: 1,
          startedAt: now - 40,
          durationMs: 40,
          statusCode: 204,
          errorClass: null,
          errorMessage: null,
          responseBody: '',
        },
        status: 'succeeded',
        nextAttemptAt: now,
        failingCutoff: now - 1,
      },
    ]);
    expect(results).toEqual([{ recorded: true, failed: 0, subscriptionDisabled: false }]);
    await queue.release([released], 'thread-worker', now);
    // Another owner holds no lease on it: nothing changes.
    expect(await queue.abandon(abandoned, 'someone-else', now)).toBe(false);
    expect(await queue.abandon(abandoned, 'thread-worker', now)).toBe(true);

    const rows = new Map((await deliveryRows(h.database.db)).map((row) => [row.id, row]));
    expect(rows.get(sent)).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      lease_owner: null,
      last_status_code: 204,
      completed_at: now,
    });
    expect(rows.get(released)).toMatchObject({
      status: 'pending',
      attempt_count: 0,
      lease_owner: null,
      lease_until: null,
    });
    expect(rows.get(abandoned)).toMatchObject({ status: 'failed', lease_owner: null, completed_at: now });
    expect(await attemptRows(h.database.db, sent)).toMatchObject([
      { delivery_id: sent, attempt_no: 1, status_code: 204, duration_ms: 40, error_class: null },
    ]);
  });

  it('a claim made after close() starts the thread again; close() first answers the calls in flight', async () => {
    const claims = [queue.claimToSend(claimOptions()), queue.claimToSend(claimOptions())];
    await queue.close();
    await expect(Promise.all(claims)).resolves.toEqual([
      { contexts: [], orphans: [] },
      { contexts: [], orphans: [] },
    ]);
    await expect(queue.claimToSend(claimOptions())).resolves.toEqual({ contexts: [], orphans: [] });
  });

  it('a thread that cannot open its database fails every call with the cause', async () => {
    // A path below a regular file: its directory cannot be made (mkdir answers EEXIST).
    const file = join(tmpdir(), `shelfmark-not-a-directory-${process.pid}`);
    writeFileSync(file, '');
    const broken = new ThreadedDeliveryQueue({ sqliteFile: join(file, 'db.sqlite'), sqliteCacheMib: 2 });
    try {
      await expect(broken.claimToSend(claimOptions())).rejects.toThrow(/EEXIST: file already exists, mkdir/);
      await expect(broken.release(['dlv_x'], 'thread-worker', h.clock.now())).rejects.toThrow(
        /EEXIST: file already exists, mkdir/,
      );
    } finally {
      await broken.close();
    }
  });
});
