/**
 * The delivery worker's database work alone, without HTTP: claims of CLAIM rows (window claims, the
 * worker's usual ones) and group commits of GROUP successful completions, until N deliveries are
 * done. Prints the client's CPU and (PostgreSQL) every backend's CPU per delivery, and the time per
 * claim and per commit. CPU time rather than a rate, so a noisy machine still compares two SQL
 * variants: `npx tsx bench/db-costs.ts` (E=sqlite,postgres N=12000 CLAIM=40 GROUP=15 CAP=8).
 * On a machine shared with other work, two more figures hold still: on SQLite the WAL pages a claim
 * and a group commit write (the automatic checkpoint is off for the run), and on PostgreSQL the CPU of
 * this run's own backends, when TEST_DATABASE_URL names them (`?application_name=dbcosts`).
 * DROP_INDEXES=a,b drops indexes after the migrations, to see what an index costs a delivery.
 */
import { statSync } from 'node:fs';
import { sql } from 'kysely';

import { LeaseTally } from '../src/delivery/lease-tally.js';
import type { Completion, SendContext } from '../src/delivery/queue/types.js';
import { DeliveryStore } from '../src/delivery/store.js';
import { addSubscription, emit } from '../test/delivery/support.js';
import { createClientWithToken, createHarness } from '../test/support/harness.js';
import { postgresCpu, processCpu } from './lib/cpu.js';

const engines = (process.env.E ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
const total = Number(process.env.N ?? 12_000);
const claimSize = Number(process.env.CLAIM ?? 40);
const groupSize = Number(process.env.GROUP ?? 15);
const perSubscription = Number(process.env.CAP ?? 8);
const SUBSCRIPTIONS = 10;
const droppedIndexes = (process.env.DROP_INDEXES ?? '').split(',').filter((name) => /^[a-z_]+$/.test(name));
/** SQLite's WAL frame: a 4,096-byte page and its 24-byte header. */
const WAL_FRAME = 4096 + 24;

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
    const kysely = h.database.db.kysely;
    for (const index of droppedIndexes) await sql.raw(`drop index ${index}`).execute(kysely);
    const walFile = engine === 'sqlite' ? `${h.database.url.replace(/^sqlite:/, '')}-wal` : undefined;
    const walBytes = (): number => (walFile === undefined ? 0 : statSync(walFile).size);
    const wal = { claim: 0, commit: 0 };
    if (walFile !== undefined) {
      await sql`pragma wal_checkpoint(truncate)`.execute(kysely);
      await sql`pragma wal_autocheckpoint = 0`.execute(kysely);
    }
    const appName = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://localhost/test').searchParams.get(
      'application_name',
    );
    const ownBackends = async (): Promise<number[]> => {
      if (engine !== 'postgres' || appName === null) return [];
      const { rows } = await sql<{
        pid: number;
      }>`select pid from pg_stat_activity where application_name = ${appName}`.execute(kysely);
      return rows.map((row) => Number(row.pid));
    };
    if (h.database.db.prepared !== undefined) await h.database.db.prepared('db_costs_warm', 'select 1', []);
    const ownBefore = new Map((await ownBackends()).map((pid) => [pid, processCpu(pid)]));
    const store = new DeliveryStore(h.database.db);
    const leased: SendContext[] = [];
    // The worker's count of its own leases per subscription, which the cap reads (delivery/lease-tally.ts).
    const tally = new LeaseTally();
    const time = { claimMs: 0, claims: 0, commitMs: 0, commits: 0 };
    let done = 0;
    const cpuBefore = process.cpuUsage();
    const postgresBefore = engine === 'postgres' ? postgresCpu() : 0;
    while (done < total) {
      let walBefore = walBytes();
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
      wal.claim += walBytes() - walBefore;
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
        walBefore = walBytes();
        started = performance.now();
        const results = await store.completeMany(group);
        for (const completion of group) tally.remove(completion.subscriptionId);
        time.commitMs += performance.now() - started;
        time.commits++;
        wal.commit += walBytes() - walBefore;
        done += results.filter((result) => result.recorded).length;
      }
      h.clock.advance(1);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const backends = engine === 'postgres' ? postgresCpu() - postgresBefore : 0;
    let own = 0;
    for (const pid of await ownBackends()) own += processCpu(pid) - (ownBefore.get(pid) ?? 0);
    console.log(
      `${engine}: ${done} deliveries; per delivery: client CPU ${((cpu.user + cpu.system) / done).toFixed(1)} µs` +
        (engine === 'postgres' ? `, PostgreSQL CPU ${((backends * 1e6) / done).toFixed(1)} µs` : '') +
        (appName !== null && engine === 'postgres'
          ? ` (this run's backends ${((own * 1e6) / done).toFixed(1)} µs)`
          : '') +
        (walFile !== undefined
          ? `; WAL pages a claim ${(wal.claim / WAL_FRAME / time.claims).toFixed(1)}, a commit ${(wal.commit / WAL_FRAME / time.commits).toFixed(1)}`
          : '') +
        `; a claim ${(time.claimMs / time.claims).toFixed(2)} ms (${time.claims}), a commit ${(time.commitMs / time.commits).toFixed(2)} ms (${time.commits})`,
    );
  } finally {
    await h.close();
  }
}
