/**
 * Webhook deliveries per second to a receiver answering 204, measured AT THE RECEIVER from the Kth to
 * the Nth distinct arrival (the first K warm each party's code up, unmeasured). Shelfmark: the deliveries are queued through its own API (a server in
 * `--role api` with 10 subscriptions to school.created, N/10 schools created over the admin API), that
 * server is stopped, then a `--role worker` process drains the queue. Interleaved per round with a
 * bare loop of signed undici POSTs (no database), pg-boss and graphile-worker on the same PostgreSQL
 * doing the same signed POST per job, each in its own process.
 */

import { randomBytes } from 'node:crypto';
import {
  type DrainPlan,
  planTotal,
  type Receiver,
  ratios,
  spread,
  startReceiver,
  windowRates,
} from '../lib/measure.js';
import { onInterrupt, spawnChild } from '../lib/proc.js';
import {
  admin,
  dropSchema,
  type Engine,
  freshDatabase,
  POSTGRES_URL,
  pool,
  startServer,
  subscribeClient,
} from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, type Target, target } from '../lib/types.js';

const SUBSCRIPTIONS = 10;
export const CONCURRENCY = 32;
// pg-boss: 8 pollers of 250 jobs; one whose batch came back full fetches again at once (else every 0.5 s).
const PGBOSS = { batchSize: 250, workers: 8, concurrency: CONCURRENCY };

const PARTIES = [
  'bare signed-POST loop',
  'Shelfmark, SQLite',
  'Shelfmark, PostgreSQL',
  'pg-boss (PostgreSQL)',
  'graphile-worker (PostgreSQL)',
] as const;
type PartyName = (typeof PARTIES)[number];

async function drainTimeout(total: number): Promise<number> {
  return Math.max(60_000, total * 20);
}

/** One window of `total` deliveries measured from the first arrival on. */
export const singleWindow = (total: number): DrainPlan => ({ warmup: 0, size: total, windows: 1 });

/**
 * Queues the plan's deliveries through a `--role api` server, stops it, then times `workers` processes
 * in `--role worker` (each with the same in-flight limit) draining them; returns each window's rate.
 */
export async function shelfmarkDelivery(
  engine: Engine,
  plan: DrainPlan,
  receiver: Receiver,
  workerNodeArgs: string[] = [],
  workers = 1,
  subscriptions = SUBSCRIPTIONS,
  /** Called as the workers start draining (their pids); the function it returns, once drained. */
  onDrain?: (workerPids: number[]) => () => void,
): Promise<number[]> {
  const sent = planTotal(plan);
  const db = await freshDatabase(engine);
  try {
    const api = await startServer(db, { role: 'api' });
    try {
      await subscribeClient(
        api,
        'school.created',
        Array.from({ length: subscriptions }, (_, i) => `${receiver.hookUrl}?s=${i}`),
      );
      const schools = Array.from({ length: Math.ceil(sent / subscriptions) }, (_, i) => i);
      await pool(schools, 8, async (i) => {
        await admin(api, '/schools', 'POST', { name: `Bench school ${i}`, type: 'VO' });
      });
    } finally {
      await api.stop();
    }
    await receiver.reset();
    const started = await Promise.all(
      Array.from({ length: workers }, () =>
        startServer(db, {
          role: 'worker',
          env: { WEBHOOK_CONCURRENCY: String(CONCURRENCY) },
          nodeArgs: workerNodeArgs,
        }),
      ),
    );
    let stats: Awaited<ReturnType<Receiver['waitFor']>>;
    let exitCodes: (number | string)[];
    const drained = onDrain?.(started.map((worker) => worker.child.pid));
    try {
      stats = await receiver.waitFor(sent, await drainTimeout(sent));
      drained?.();
    } finally {
      exitCodes = await Promise.all(started.map((worker) => worker.stop()));
    }
    if (exitCodes.some((code) => code !== 0)) throw new Error(`a worker exited with ${exitCodes.join(', ')}`);
    if (stats.distinct < sent) throw new Error(`Shelfmark (${engine}) delivered ${stats.distinct} of ${sent}`);
    return await windowRates(receiver, plan);
  } finally {
    await db.drop();
  }
}

export async function bareRate(plan: DrainPlan, receiver: Receiver): Promise<number[]> {
  const sent = planTotal(plan);
  await receiver.reset();
  const child = spawnChild('signed-loop', [
    JSON.stringify({ url: `${receiver.hookUrl}?s=bare`, total: sent, concurrency: CONCURRENCY }),
  ]);
  try {
    await child.result(await drainTimeout(sent));
    await receiver.waitFor(sent, 10_000);
    return await windowRates(receiver, plan);
  } finally {
    await child.stop('SIGKILL', 5000);
  }
}

/**
 * A PostgreSQL job-queue peer in its own process (`bench/children/<child>.ts`): it queues the plan's
 * jobs in a fresh schema, prints READY and drains them with the same signed POST as every party.
 */
async function queuePeerRate(
  name: string,
  child: 'pgboss' | 'graphile',
  options: Record<string, unknown>,
  plan: DrainPlan,
  receiver: Receiver,
): Promise<number[]> {
  const sent = planTotal(plan);
  await receiver.reset();
  const schema = `${child}_${randomBytes(4).toString('hex')}`;
  const peer = spawnChild(child, [
    JSON.stringify({
      databaseUrl: POSTGRES_URL,
      schema,
      url: `${receiver.hookUrl}?s=${child}`,
      total: sent,
      ...options,
    }),
  ]);
  // Interrupted, the child is killed before it can drop its schema: the orchestrator drops it then.
  const forget = onInterrupt(() => dropSchema(schema));
  try {
    await peer.line('READY', 60_000);
    const stats = await receiver.waitFor(sent, await drainTimeout(sent));
    if (stats.distinct < sent) throw new Error(`${name} delivered ${stats.distinct} of ${sent}`);
    return await windowRates(receiver, plan);
  } finally {
    // SIGTERM: it stops its workers and drops its schema (dropped here again if it was killed instead).
    const code = await peer.stop('SIGTERM', 15_000);
    forget();
    if (code !== 0) await dropSchema(schema);
  }
}

export const pgBossRate = (plan: DrainPlan, receiver: Receiver): Promise<number[]> =>
  queuePeerRate('pg-boss', 'pgboss', PGBOSS, plan, receiver);

const graphileWorkerRate = (plan: DrainPlan, receiver: Receiver): Promise<number[]> =>
  queuePeerRate('graphile-worker', 'graphile', { concurrency: CONCURRENCY }, plan, receiver);

/**
 * The measured windows of every drain: how a fresh process starts (first), the rate it reaches (next),
 * and a long window after both (warm, `BENCH_DELIVERY_WARM`, 20,000) that a second of noise moves less.
 */
const WINDOWS = ['first', 'next', 'warm'] as const;
type Window = (typeof WINDOWS)[number];

/** Shelfmark's rate as a share of the bare signed-POST loop's, on both engines and in every window. */
const BARE_LOOP_FLOOR = 65;
/** Shelfmark's rate against graphile-worker's, by engine and window (none where no target is set). */
const GRAPHILE_FLOORS: Record<'SQLite' | 'PostgreSQL', Partial<Record<Window, number>>> = {
  SQLite: { warm: 1.5 },
  PostgreSQL: { first: 1, warm: 1.25 },
};

export async function deliveryScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const total = settings.deliveries;
  // Every party is a fresh process each round: the first deliveries run on cold code (for Shelfmark's
  // worker, about three times the CPU of warm ones). As the HTTP loads get an unmeasured warm-up,
  // every party here sends a fifth more first, in the same process, and the clock starts after them.
  // Then two windows of `total` are timed: the first still includes the JIT's tier-up of the larger
  // code paths (a worker reaches its rate after about 0.4 s), the next is the rate a process keeps.
  const plan: DrainPlan = { warmup: Math.round(total / 5), size: total, windows: 2, tail: settings.deliveryWarm };
  const receiver = await startReceiver();
  const runs = Object.fromEntries(
    PARTIES.map((name) => [name, { first: [] as number[], next: [] as number[], warm: [] as number[] }]),
  ) as Record<PartyName, Record<Window, number[]>>;
  const parties: { name: PartyName; run: () => Promise<number[]> }[] = [
    { name: 'bare signed-POST loop', run: () => bareRate(plan, receiver) },
    { name: 'Shelfmark, SQLite', run: () => shelfmarkDelivery('sqlite', plan, receiver) },
  ];
  if (settings.postgres) {
    parties.push({ name: 'pg-boss (PostgreSQL)', run: () => pgBossRate(plan, receiver) });
    parties.push({ name: 'graphile-worker (PostgreSQL)', run: () => graphileWorkerRate(plan, receiver) });
    parties.push({ name: 'Shelfmark, PostgreSQL', run: () => shelfmarkDelivery('postgres', plan, receiver) });
  }
  // BENCH_DELIVERY_PARTIES (comma-separated parts of party names, e.g. `PostgreSQL`) runs only those
  // parties, for comparing two builds against one peer; a full run keeps every party.
  const only = (process.env.BENCH_DELIVERY_PARTIES ?? '').split(',').filter((part) => part !== '');
  if (only.length > 0)
    parties.splice(0, parties.length, ...parties.filter((party) => only.some((part) => party.name.includes(part))));
  try {
    for (let round = 0; round < settings.deliveryRounds; round++) {
      const order = round % 2 === 0 ? parties : [...parties].reverse();
      for (const party of order) {
        const rates = await party.run();
        for (const [index, window] of WINDOWS.entries()) runs[party.name][window].push(rates[index] ?? Number.NaN);
        log(`  round ${round + 1} ${party.name}: ${rates.join(' then ')} deliveries/s`);
      }
    }
  } finally {
    await receiver.stop();
  }
  const rows: Row[] = [];
  const targets: Target[] = [];
  const windowName = (window: Window): string =>
    window === 'warm' ? `warm ${settings.deliveryWarm}` : `${window} ${total}`;
  for (const window of WINDOWS)
    for (const party of parties)
      rows.push({
        scenario: 'delivery',
        party: party.name,
        metric: `deliveries/s, ${windowName(window)}`,
        unit: '/s',
        spread: spread(runs[party.name][window]),
      });
  for (const window of WINDOWS) {
    const bare = runs['bare signed-POST loop'][window];
    const boss = runs['pg-boss (PostgreSQL)'][window];
    const graphile = runs['graphile-worker (PostgreSQL)'][window];
    for (const [name, label] of [
      ['Shelfmark, SQLite', 'SQLite'],
      ['Shelfmark, PostgreSQL', 'PostgreSQL'],
    ] as const) {
      const own = runs[name][window];
      if (own.length === 0) continue;
      const floor = BARE_LOOP_FLOOR;
      const ofBare = ratios(own, bare);
      const metric = (what: string): string => `${what}, ${windowName(window)}`;
      rows.push({
        scenario: 'delivery',
        party: name,
        metric: metric('of bare loop'),
        unit: '%',
        spread: spread(ofBare.values.map((value) => value * 100)),
      });
      targets.push(
        target(
          'delivery',
          `delivery ${label} ≥ ${floor} % of the bare signed-POST loop (${windowName(window)})`,
          ofBare.median * 100,
          floor,
          '%',
          'atLeast',
        ),
      );
      if (boss.length > 0) {
        const ofBoss = ratios(own, boss);
        rows.push({ scenario: 'delivery', party: name, metric: metric('× pg-boss'), unit: '×', spread: ofBoss });
        targets.push(
          target(
            'delivery',
            `delivery ${label} ≥ 1.2× pg-boss (${windowName(window)})`,
            ofBoss.median,
            1.2,
            '×',
            'atLeast',
          ),
        );
      }
      if (graphile.length > 0) {
        const ofGraphile = ratios(own, graphile);
        rows.push({
          scenario: 'delivery',
          party: name,
          metric: metric('× graphile-worker'),
          unit: '×',
          spread: ofGraphile,
        });
        // Clearly ahead of graphile-worker once warm, and level with it from the first delivery.
        const wanted = GRAPHILE_FLOORS[label][window];
        if (wanted !== undefined)
          targets.push(
            target(
              'delivery',
              `delivery ${label} ≥ ${wanted}× graphile-worker (${windowName(window)})`,
              ofGraphile.median,
              wanted,
              '×',
              'atLeast',
            ),
          );
      }
    }
  }
  return {
    rows,
    targets,
    notes: [
      `delivery: median of ${settings.deliveryRounds} interleaved rounds; ${plan.warmup} unmeasured deliveries, then the first ${total}, the next ${total} and a warm ${settings.deliveryWarm} timed separately, all sent by the same process (${SUBSCRIPTIONS} subscriptions × ${planTotal(plan) / SUBSCRIPTIONS} school.created events), concurrency ${CONCURRENCY}, each rate from the window's first to its last arrival at the receiver; pg-boss ${PGBOSS.workers} workers × batches of ${PGBOSS.batchSize}, polling every 0.5 s, ${CONCURRENCY} POSTs in flight; graphile-worker concurrentJobs ${CONCURRENCY}, pool ${CONCURRENCY + 1}, local queue 500 and batched completions where its version has them`,
    ],
    raw: { plan, runs },
  };
}
