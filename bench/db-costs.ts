/**
 * The delivery worker's database work alone, without HTTP: claims of CLAIM rows (window claims, the
 * worker's usual ones) and group commits of GROUP successful completions, until N deliveries are
 * done. Prints the client's CPU and (PostgreSQL) every backend's CPU per delivery, and the time per
 * claim and per commit. CPU time rather than a rate, so a noisy machine still compares two SQL
 * variants: `npx tsx bench/db-costs.ts` (E=sqlite,postgres N=12000 CLAIM=40 GROUP=15 CAP=8).
 */

import { LeaseTally } from '../src/delivery/lease-tally.js';
import type { Completion, SendContext } from '../src/delivery/queue/types.js';
import { DeliveryStore } from '../src/delivery/store.js';
import { addSubscription, emit } from '../test/delivery/support.js';
import { createClientWithToken, createHarness } from '../test/support/harness.js';
import { postgresCpu } from './lib/cpu.js';

const engines = (process.env.E ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
const total = Number(process.env.N ?? 12_000);
const claimSize = Number(process.env.CLAIM ?? 40);
const groupSize = Number(process.env.GROUP ?? 15);
const perSubscription = Number(process.env.CAP ?? 8);
const SUBSCRIPTIONS = 10;

function succeeded(context: SendContext, now: number): Completion {
  return {
    id: context.id,
    owner: 'bench',
    subscriptionId: context.subscriptionId,
    now,
    status: 'succeeded',
    nextAttemptAt: now,
    failingCutoff: now - 3_600_000,
    attempt: {
      attemptNo: context.attemptCount + 1,
      startedAt: now - 3,
      durationMs: 3,
      statusCode: 204,
      errorClass: null,
      errorMessage: null,
      responseBody: '',
    },
  };
}

for (const engine of engines) {
  // A SQLite file, as the worker uses: in memory, commits skip the WAL writes that are part of the cost.
  const h = await createHarness(engine, { webhookAllowPrivate: true }, { file: engine === 'sqlite' });
  try {
    const clientRef = (await createClientWithToken(h)).id;
    for (let i = 0; i < SUBSCRIPTIONS; i++)
      await addSubscription(h.database.db, clientRef, `http://127.0.0.1:9/${i}`, h.clock.now());
    for (let i = 0; i < total / SUBSCRIPTIONS; i += 100) await emit(h.database.db, h.clock.now() + i, 100);
    h.clock.advance(1000);
    const store = new DeliveryStore(h.database.db);
    const leased: SendContext[] = [];
    // The worker's count of its own leases per subscription, which the cap reads (delivery/lease-tally.ts).
    const tally = new LeaseTally();
    const time = { claimMs: 0, claims: 0, commitMs: 0, commits: 0 };
    let done = 0;
    const cpuBefore = process.cpuUsage();
    const postgresBefore = engine === 'postgres' ? postgresCpu() : 0;
    while (done < total) {
      let started = performance.now();
      const batch = await store.claimToSend({
        owner: 'bench',
        now: h.clock.now(),
        leaseMs: 15_000,
        limit: claimSize,
        perSubscription,
        held: tally.held,
        lane: 'first',
        reach: 'window',
      });
      time.claimMs += performance.now() - started;
      time.claims++;
      leased.push(...batch.contexts);
      for (const context of batch.contexts) tally.add(context.subscriptionId);
      if (leased.length === 0) break;
      // Complete what was claimed in groups, as the worker's group commits do between its claims; like
      // the worker's claim-ahead queue, the last claim's rows stay leased (and counted) until the next claim.
      const keep = batch.contexts.length;
      while (leased.length > keep) {
        const group = leased
          .splice(0, Math.min(groupSize, leased.length - keep))
          .map((context) => succeeded(context, h.clock.now()));
        started = performance.now();
        const results = await store.completeMany(group);
        for (const completion of group) tally.remove(completion.subscriptionId);
        time.commitMs += performance.now() - started;
        time.commits++;
        done += results.filter((result) => result.recorded).length;
      }
      h.clock.advance(1);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const backends = engine === 'postgres' ? postgresCpu() - postgresBefore : 0;
    console.log(
      `${engine}: ${done} deliveries; per delivery: client CPU ${((cpu.user + cpu.system) / done).toFixed(1)} µs` +
        (engine === 'postgres' ? `, PostgreSQL CPU ${((backends * 1e6) / done).toFixed(1)} µs` : '') +
        `; a claim ${(time.claimMs / time.claims).toFixed(2)} ms (${time.claims}), a commit ${(time.commitMs / time.commits).toFixed(2)} ms (${time.commits})`,
    );
  } finally {
    await h.close();
  }
}
