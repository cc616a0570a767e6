/** Claiming: leases are exclusive and expire, first attempts go before retries, one subscription cannot take every slot. */
import { sql } from 'kysely';
import { beforeEach, expect, it } from 'vitest';
import { LaneClaimer } from '../../src/delivery/lanes.js';
import { LeaseTally } from '../../src/delivery/lease-tally.js';
import type { SendResult, WebhookRequest, WebhookSender } from '../../src/delivery/sender.js';
import { DeliveryStore } from '../../src/delivery/store.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { addSubscription, deliveryRows, emit, startReceiver } from './support.js';

class RecordingSender implements WebhookSender {
  readonly sent: WebhookRequest[] = [];
  constructor(
    private readonly answer: (request: WebhookRequest) => SendResult = () => ({
      kind: 'response',
      statusCode: 200,
      headers: {},
      bodySnippet: '',
    }),
  ) {}
  async send(request: WebhookRequest): Promise<SendResult> {
    this.sent.push(request);
    return this.answer(request);
  }
  async close(): Promise<void> {}
}

describeEachEngine('claiming deliveries', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true }, client: true });
  let store: DeliveryStore;
  const claim = (
    owner: string,
    limit: number,
    lane: 'first' | 'retry' = 'first',
    perSubscription = 100,
    held?: ReadonlyMap<string, number>,
  ) => store.claim({ owner, now: h.clock.now(), leaseMs: 10_000, limit, perSubscription, held, lane });

  beforeEach(async () => {
    store = new DeliveryStore(h.database.db);
  });

  /** The worker's lane claimer (cap 4, poll 500 ms) over a store that records each claim as lane/reach. */
  const countingLanes = () => {
    const calls: string[] = [];
    const counting = new DeliveryStore(h.database.db);
    const claimToSend = counting.claimToSend.bind(counting);
    counting.claimToSend = (claimOptions) => {
      calls.push(`${claimOptions.lane}/${claimOptions.reach}`);
      return claimToSend(claimOptions);
    };
    const tally = new LeaseTally();
    const options = { owner: 'W', leaseMs: 10_000, perSubscription: 4, pollIntervalMs: 500 };
    return { lanes: new LaneClaimer(counting, h.clock, options, tally), calls, tally };
  };

  it('deliveries due at the same time are claimed oldest first: insertion order on SQLite, id order on PostgreSQL', async () => {
    await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/a', h.clock.now());
    // One transaction: the 40 deliveries share their due time and, mostly, their id's millisecond.
    await emit(h.database.db, h.clock.now(), 40);
    const all = h.database.db.kysely.selectFrom('deliveries').select('id');
    const inserted = (await (engine === 'sqlite' ? all.orderBy(sql`rowid`) : all.orderBy('id')).execute()).map(
      (row) => row.id,
    );
    // Each claim takes the next 10 (RETURNING gives no order of its own, so each batch is compared as a set).
    for (let i = 0; i < 4; i++) {
      const batch = (await claim('A', 10, 'first', 100, new Map())).map((row) => row.id);
      expect(batch.sort()).toEqual(inserted.slice(i * 10, i * 10 + 10).sort());
    }
  });

  it('a lease is exclusive until it expires; then the work is claimable again and the old owner cannot complete', async () => {
    await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/a', h.clock.now());
    await emit(h.database.db, h.clock.now(), 5);
    expect(await claim('A', 3)).toHaveLength(3);
    expect(await claim('B', 10)).toHaveLength(2);
    expect(await claim('A', 10)).toHaveLength(0);
    const leased = await deliveryRows(h.database.db);
    expect(leased.every((row) => row.lease_until === h.clock.now() + 10_000)).toBe(true);

    h.clock.advance(10_001);
    const taken = await claim('C', 10);
    expect(taken).toHaveLength(5);
    const attempt = {
      attemptNo: 1,
      startedAt: h.clock.now(),
      durationMs: 1,
      statusCode: 200,
      errorClass: null,
      errorMessage: null,
      responseBody: '',
    };
    // The first delivery's success, recorded by `owner`.
    const complete = (owner: string) =>
      store.complete({
        id: taken[0]!.id,
        owner,
        subscriptionId: taken[0]!.subscription_id,
        now: h.clock.now(),
        attempt,
        status: 'succeeded',
        nextAttemptAt: h.clock.now(),
        failingCutoff: 0,
      });
    const late = await complete('A');
    expect(late).toEqual({ recorded: false, failed: 0, subscriptionDisabled: false });
    const own = await complete('C');
    expect(own.recorded).toBe(true);
    expect(await h.database.db.kysely.selectFrom('delivery_attempts').selectAll().execute()).toHaveLength(1);
  });

  it('caps the leases one subscription holds by the claimer, counting the ones it holds already', async () => {
    const busy = await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/busy', h.clock.now());
    await emit(h.database.db, h.clock.now(), 20);
    h.clock.advance(1);
    const quiet = await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/quiet', h.clock.now());
    await emit(h.database.db, h.clock.now(), 1);
    const first = await claim('A', 10, 'first', 3);
    expect(first.filter((row) => row.subscription_id === busy)).toHaveLength(3);
    expect(first.filter((row) => row.subscription_id === quiet)).toHaveLength(1);
    expect(first).toHaveLength(4);
    // Holding those, A gets nothing more of `busy`; holding two of them, one more.
    expect(await claim('A', 10, 'first', 3, new Map([[busy, 3]]))).toEqual([]);
    const more = await claim('A', 10, 'first', 3, new Map([[busy, 2]]));
    expect(more.map((row) => row.subscription_id)).toEqual([busy]);
    // The cap shares out one claimer's slots: B holds none, so it takes three rows A does not hold.
    const taken = new Set([...first, ...more].map((row) => row.id));
    const second = await claim('B', 10, 'first', 3);
    expect(second.map((row) => row.subscription_id)).toEqual([busy, busy, busy]);
    expect(second.filter((row) => taken.has(row.id))).toEqual([]);
    const leased = (await deliveryRows(h.database.db)).filter((row) => row.lease_until !== null);
    expect(leased.filter((row) => row.lease_owner === 'A')).toHaveLength(5);
    expect(leased.filter((row) => row.lease_owner === 'B')).toHaveLength(3);
  });

  it('first attempts are sent before a backlog of due retries, which keep a quarter of the slots', async () => {
    const db = h.database.db;
    for (let i = 0; i < 8; i++) await addSubscription(db, h.client.id, `http://127.0.0.1:9/retry-${i}`, h.clock.now());
    await emit(db, h.clock.now(), 5); // 40 deliveries, made retries below
    await db.kysely
      .updateTable('deliveries')
      .set({ attempt_count: 1, next_attempt_at: h.clock.now() - 60_000 })
      .execute();
    h.clock.advance(1000);
    const fresh = await addSubscription(db, h.client.id, 'http://127.0.0.1:9/fresh', h.clock.now(), 'list.published');
    await db.kysely.transaction().execute(async (trx) => {
      const { recordEvents } = await import('../../src/events/outbox.js');
      await recordEvents(trx, db.dialect, h.clock.now(), [
        { name: 'list.published', type: 'published', resource: 'list', identifier: 'f'.repeat(32) },
      ]);
    });
    const sender = new RecordingSender();
    const worker = h.services.createDeliveryWorker({ sender, concurrency: 4 });
    expect(await worker.runOnce()).toBe(4);
    expect(sender.sent.filter((request) => request.url.endsWith('/fresh'))).toHaveLength(1);
    expect(sender.sent.filter((request) => request.url.includes('/retry-'))).toHaveLength(3);
    const freshRow = (await deliveryRows(db)).find((row) => row.subscription_id === fresh);
    expect(freshRow?.status).toBe('succeeded');
    await worker.stop();
  });

  it('a window claim looks at the first due rows only; past-capped walks behind a capped backlog, and the worker does so once a poll interval', async () => {
    const busy = await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/busy', h.clock.now());
    await emit(h.database.db, h.clock.now(), 300); // more than a window of 256 rows, all of one subscription
    h.clock.advance(1);
    const other = await addSubscription(
      h.database.db,
      h.client.id,
      'http://127.0.0.1:9/other',
      h.clock.now(),
      'list.published',
    );
    await h.database.db.kysely.transaction().execute(async (trx) => {
      const { recordEvents } = await import('../../src/events/outbox.js');
      await recordEvents(trx, h.database.db.dialect, h.clock.now(), [
        { name: 'list.published', type: 'published', resource: 'list', identifier: 'b'.repeat(32) },
      ]);
    });
    const options = { now: h.clock.now(), leaseMs: 10_000, perSubscription: 4, lane: 'first' as const };
    // `busy` reaches its cap of 4; its other 296 rows stand before `other`'s one.
    const first = await store.claim({ ...options, owner: 'A', limit: 4, reach: 'window' });
    expect(first.map((row) => row.subscription_id)).toEqual([busy, busy, busy, busy]);
    const held = new Map([[busy, 4]]);
    expect(await store.claim({ ...options, owner: 'A', limit: 4, held, reach: 'window' })).toEqual([]);
    const reached = await store.claim({ ...options, owner: 'A', limit: 4, held, reach: 'past-capped' });
    expect(reached.map((row) => row.subscription_id)).toEqual([other]);

    // The worker: its window claim comes back short, so it walks past the cap, then not again within a poll interval.
    h.clock.advance(10_001); // every lease above expired
    const { lanes, calls, tally } = countingLanes();
    const batch = await lanes.claim(8);
    expect(batch.contexts.map((context) => context.subscriptionId).sort()).toEqual(
      [busy, busy, busy, busy, other].sort(),
    );
    // What it claimed is counted against the cap of its next claims.
    expect([...tally.held]).toEqual([
      [busy, 4],
      [other, 1],
    ]);
    expect(calls.filter((call) => call.endsWith('/past-capped'))).toEqual(['first/past-capped', 'retry/past-capped']);
    calls.length = 0;
    h.clock.advance(100);
    await lanes.claim(8);
    expect(calls.filter((call) => call.endsWith('/past-capped'))).toEqual([]);
    h.clock.advance(500);
    await lanes.claim(8);
    expect(calls.filter((call) => call.endsWith('/past-capped'))).toContain('first/past-capped');
  });

  it('the worker asks each lane once when all that is due fits, and new deliveries leave an empty retry lane closed', async () => {
    const subscription = await addSubscription(h.database.db, h.client.id, 'http://127.0.0.1:9/one', h.clock.now());
    await emit(h.database.db, h.clock.now(), 1);
    const { lanes, calls } = countingLanes();
    // One due of the six asked for, no subscription at its cap: nothing more is due, so no second look.
    const first = await lanes.claim(8);
    expect(first.contexts.map((context) => context.subscriptionId)).toEqual([subscription]);
    expect(calls).toEqual(['first/window', 'retry/window']);
    // A commit of new deliveries (the outbox; the worker leaves the lanes alone): the empty retry lane
    // stays closed until its poll interval.
    calls.length = 0;
    await emit(h.database.db, h.clock.now(), 1);
    expect((await lanes.claim(8)).contexts).toHaveLength(1);
    expect(calls).toEqual(['first/window']);
    // Deliveries re-queued (a retry, a recovery) open it again.
    calls.length = 0;
    lanes.wake();
    expect((await lanes.claim(8)).contexts).toEqual([]);
    expect(calls).toEqual(['first/window', 'retry/window']);
  });

  it('a slow receiver with a backlog does not hold up another subscription', async () => {
    const slow = await startReceiver(() => ({ delayMs: 300 }));
    const fast = await startReceiver();
    const worker = h.services.createDeliveryWorker({
      concurrency: 8,
      perSubscription: 4,
      onError: () => undefined,
    });
    try {
      await addSubscription(h.database.db, h.client.id, slow.url, h.clock.now());
      await emit(h.database.db, h.clock.now(), 40);
      h.clock.advance(1);
      await addSubscription(h.database.db, h.client.id, fast.url, h.clock.now(), 'list.published');
      await h.database.db.kysely.transaction().execute(async (trx) => {
        const { recordEvents } = await import('../../src/events/outbox.js');
        await recordEvents(trx, h.database.db.dialect, h.clock.now(), [
          { name: 'list.published', type: 'published', resource: 'list', identifier: 'a'.repeat(32) },
        ]);
      });
      const started = Date.now();
      worker.start();
      await fast.waitFor(1, 5000);
      const waited = Date.now() - started;
      // Without the cap the slow backlog would fill all 8 slots for 5 rounds of 300 ms first.
      expect(waited).toBeLessThan(400);
      expect(slow.received.length).toBeLessThan(40);
    } finally {
      await worker.stop();
      await slow.close();
      await fast.close();
    }
  });
});
