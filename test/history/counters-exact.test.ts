/**
 * The hourly counters are written in the completion's own transaction (one upsert per batch; on
 * PostgreSQL a CTE of the batch's one statement), never kept in memory for later: a completion that
 * does not commit (a crash, a failed write) leaves neither its rows nor its counts, and one recorded
 * again (its lease already cleared) counts nothing twice. A failing write is forced with a trigger on
 * the counters' table, so the batch fails at its very last step.
 */
import { sql } from 'kysely';
import { beforeEach, expect, it } from 'vitest';
import type { Completion, SendContext } from '../../src/delivery/queue/types.js';
import { hourStart, STATS_SHARD } from '../../src/delivery/stats.js';
import { DeliveryStore } from '../../src/delivery/store.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';
import { subscriptionWithPending } from './support.js';

describeEachEngine('history counters are exact across failed commits', (engine) => {
  const h = useHarness(engine);
  let store: DeliveryStore;
  let claimed: SendContext[];
  beforeEach(async () => {
    await subscriptionWithPending(h, 3);
    store = new DeliveryStore(h.database.db);
    const batch = await store.claimToSend({
      owner: 'w1',
      now: h.clock.now(),
      leaseMs: 60_000,
      limit: 10,
      perSubscription: 10,
      lane: 'first',
    });
    claimed = batch.contexts;
  });

  const succeeded = (context: SendContext, now: number): Completion => ({
    id: context.id,
    owner: 'w1',
    subscriptionId: context.subscriptionId,
    now,
    status: 'succeeded',
    nextAttemptAt: now,
    failingCutoff: now - 3_600_000,
    attempt: {
      attemptNo: 1,
      startedAt: now - 4,
      durationMs: 4,
      statusCode: 204,
      errorClass: null,
      errorMessage: null,
      responseBody: null,
    },
  });

  async function refuseCounterWrites(): Promise<void> {
    const k = h.database.db.kysely;
    if (engine === 'sqlite') {
      for (const event of ['insert', 'update'])
        await sql
          .raw(
            `create trigger refuse_${event} before ${event} on delivery_stats begin select raise(abort, 'counters refused'); end`,
          )
          .execute(k);
      return;
    }
    await sql`create function refuse_counters() returns trigger language plpgsql as $$ begin raise exception 'counters refused'; end $$`.execute(
      k,
    );
    await sql`create trigger refuse before insert or update on delivery_stats for each row execute function refuse_counters()`.execute(
      k,
    );
  }

  async function allowCounterWrites(): Promise<void> {
    const k = h.database.db.kysely;
    if (engine === 'sqlite')
      for (const event of ['insert', 'update']) await sql.raw(`drop trigger refuse_${event}`).execute(k);
    else await sql`drop trigger refuse on delivery_stats`.execute(k);
  }

  const state = async () => ({
    deliveries: await h.database.db.kysely
      .selectFrom('deliveries')
      .select(['status', 'lease_owner'])
      .orderBy('id')
      .execute(),
    attempts: Number(
      (
        await h.database.db.kysely
          .selectFrom('delivery_attempts')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      )?.n ?? 0,
    ),
    stats: await h.database.db.kysely.selectFrom('delivery_stats').selectAll().execute(),
  });

  it('a batch whose counters cannot be written records nothing; recorded later, it counts once', async () => {
    expect(claimed).toHaveLength(3);
    const now = h.clock.now();
    const batch = claimed.map((context) => succeeded(context, now));
    await refuseCounterWrites();
    await expect(store.completeMany(batch)).rejects.toThrow(/counters refused/);
    await allowCounterWrites();
    const pending = { status: 'pending', lease_owner: 'w1' };
    expect(await state()).toEqual({ deliveries: [pending, pending, pending], attempts: 0, stats: [] });

    const results = await store.completeMany(batch);
    expect(results.map((result) => result.recorded)).toEqual([true, true, true]);
    const counted = [
      { hour: hourStart(now), shard: STATS_SHARD, attempts_ok: 3, attempts_failed: 0, succeeded: 3, failed: 0 },
    ];
    const done = { status: 'succeeded', lease_owner: null };
    expect(await state()).toEqual({ deliveries: [done, done, done], attempts: 3, stats: counted });

    // The same completions again (a worker retrying a commit whose answer it lost): the leases are
    // gone, so nothing is recorded and nothing counted a second time.
    const again = await store.completeMany(batch);
    expect(again.map((result) => result.recorded)).toEqual([false, false, false]);
    expect(await state()).toEqual({ deliveries: [done, done, done], attempts: 3, stats: counted });
  });
});
