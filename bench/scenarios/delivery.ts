/**
 * Webhook deliveries per second to a receiver answering 204, measured AT THE RECEIVER from the Kth to
 * the Nth distinct arrival (the first K warm each party's code up, unmeasured). Shelfmark: the deliveries are queued through its own API (a server in
 * `--role api` with 10 subscriptions to school.created, N/10 schools created over the admin API), that
 * server is stopped, then a `--role worker` process drains the queue. Interleaved per round with a
 * bare loop of signed undici POSTs (no database), pg-boss and graphile-worker on the same PostgreSQL
 * doing the same signed POST per job, each in its own process.
 */
import { arrivalRate, type Receiver, ratios, spread, startReceiver } from '../lib/measure.js';
import { onInterrupt, spawnChild } from '../lib/proc.js';
import {
  accessToken,
  admin,
  call,
  createClient,
  dropSchema,
  type Engine,
  freshDatabase,
  pool,
  POSTGRES_URL,
  startServer,
} from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, type Target, target } from '../lib/types.js';
import { randomBytes } from 'node:crypto';

const SUBSCRIPTIONS = 10;
const CONCURRENCY = 32;
// pg-boss: 8 pollers of 250 jobs; one whose batch came back full fetches again at once (else every 0.5 s).
const PGBOSS = { batchSize: 250, workers: 8, concurrency: CONCURRENCY };

type PartyName =
  | 'bare signed-POST loop'
  | 'Shelfmark, SQLite'
  | 'Shelfmark, PostgreSQL'
  | 'pg-boss (PostgreSQL)'
  | 'graphile-worker (PostgreSQL)';

async function drainTimeout(total: number): Promise<number> {
  return Math.max(60_000, total * 20);
}

/**
 * Queues `total` deliveries through a `--role api` server, stops it, then times `workers` processes in
 * `--role worker` (each with the same in-flight limit) draining them.
 */
export async function shelfmarkDelivery(
  engine: Engine,
  total: number,
  receiver: Receiver,
  workerNodeArgs: string[] = [],
  workers = 1,
  subscriptions = SUBSCRIPTIONS,
  /** Called as the workers start draining (their pids); the function it returns, once drained. */
  onDrain?: (workerPids: number[]) => () => void,
  /** Deliveries sent before the measured `total` (the worker's code warms up on them). */
  warmup = 0,
): Promise<number> {
  const sent = warmup + total;
  const db = await freshDatabase(engine);
  try {
    const api = await startServer(db, { role: 'api' });
    try {
      const client = await createClient(api, ['webhooks:manage']);
      const token = await accessToken(api, client);
      for (let i = 0; i < subscriptions; i++) {
        await call(`${api.url}/api/lml/v1/subscriptions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: { notificationUrl: `${receiver.hookUrl}?s=${i}`, event: 'school.created' },
        });
      }
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
      stats = await receiver.waitFor(sent, await drainTimeout(sent), warmup);
      drained?.();
    } finally {
      exitCodes = await Promise.all(started.map((worker) => worker.stop()));
    }
    if (exitCodes.some((code) => code !== 0)) throw new Error(`a worker exited with ${exitCodes.join(', ')}`);
    if (stats.distinct < sent) throw new Error(`Shelfmark (${engine}) delivered ${stats.distinct} of ${sent}`);
    return arrivalRate(stats, sent, warmup);
  } finally {
    await db.drop();
  }
}

export async function bareRate(total: number, receiver: Receiver, warmup = 0): Promise<number> {
  const sent = warmup + total;
  await receiver.reset();
  const child = spawnChild('signed-loop', [
    JSON.stringify({ url: `${receiver.hookUrl}?s=bare`, total: sent, concurrency: CONCURRENCY }),
  ]);
  try {
    await child.result(await drainTimeout(sent));
    const stats = await receiver.waitFor(sent, 10_000, warmup);
    return arrivalRate(stats, sent, warmup);
  } finally {
    await child.stop('SIGKILL', 5000);
  }
}

export async function pgBossRate(total: number, receiver: Receiver, warmup = 0): Promise<number> {
  const sent = warmup + total;
  await receiver.reset();
  const schema = `pgboss_${randomBytes(4).toString('hex')}`;
  const child = spawnChild('pgboss', [
    JSON.stringify({ databaseUrl: POSTGRES_URL, schema, url: `${receiver.hookUrl}?s=pgboss`, total: sent, ...PGBOSS }),
  ]);
  // Interrupted, the child is killed before it can drop its schema: the orchestrator drops it then.
  const forget = onInterrupt(() => dropSchema(schema));
  try {
    await child.line('READY', 60_000);
    const stats = await receiver.waitFor(sent, await drainTimeout(sent), warmup);
    if (stats.distinct < sent) throw new Error(`pg-boss delivered ${stats.distinct} of ${sent}`);
    return arrivalRate(stats, sent, warmup);
  } finally {
    // SIGTERM: it stops its workers and drops its schema (dropped here again if it was killed instead).
    const code = await child.stop('SIGTERM', 15_000);
    forget();
    if (code !== 0) await dropSchema(schema);
  }
}

async function graphileWorker(total: number, receiver: Receiver, warmup = 0): Promise<number> {
  const sent = warmup + total;
  await receiver.reset();
  const schema = `graphile_${randomBytes(4).toString('hex')}`;
  const child = spawnChild('graphile', [
    JSON.stringify({
      databaseUrl: POSTGRES_URL,
      schema,
      url: `${receiver.hookUrl}?s=graphile`,
      total: sent,
      concurrency: CONCURRENCY,
    }),
  ]);
  const forget = onInterrupt(() => dropSchema(schema));
  try {
    await child.line('READY', 60_000);
    const stats = await receiver.waitFor(sent, await drainTimeout(sent), warmup);
    if (stats.distinct < sent) throw new Error(`graphile-worker delivered ${stats.distinct} of ${sent}`);
    return arrivalRate(stats, sent, warmup);
  } finally {
    const code = await child.stop('SIGTERM', 15_000);
    forget();
    if (code !== 0) await dropSchema(schema);
  }
}

export async function deliveryScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const total = settings.deliveries;
  // Every party is a fresh process each round: the first deliveries run on cold code (for Shelfmark's
  // worker, about three times the CPU of warm ones). As the HTTP loads get an unmeasured warm-up,
  // every party here sends a fifth more first, in the same process, and the clock starts after them.
  const warmup = Math.round(total / 5);
  const receiver = await startReceiver();
  const runs: Record<PartyName, number[]> = {
    'bare signed-POST loop': [],
    'Shelfmark, SQLite': [],
    'Shelfmark, PostgreSQL': [],
    'pg-boss (PostgreSQL)': [],
    'graphile-worker (PostgreSQL)': [],
  };
  const parties: { name: PartyName; run: () => Promise<number> }[] = [
    { name: 'bare signed-POST loop', run: () => bareRate(total, receiver, warmup) },
    {
      name: 'Shelfmark, SQLite',
      run: () => shelfmarkDelivery('sqlite', total, receiver, [], 1, SUBSCRIPTIONS, undefined, warmup),
    },
  ];
  if (settings.postgres) {
    parties.push({ name: 'pg-boss (PostgreSQL)', run: () => pgBossRate(total, receiver, warmup) });
    parties.push({ name: 'graphile-worker (PostgreSQL)', run: () => graphileWorker(total, receiver, warmup) });
    parties.push({
      name: 'Shelfmark, PostgreSQL',
      run: () => shelfmarkDelivery('postgres', total, receiver, [], 1, SUBSCRIPTIONS, undefined, warmup),
    });
  }
  try {
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? parties : [...parties].reverse();
      for (const party of order) {
        const rate = await party.run();
        runs[party.name].push(rate);
        log(`  round ${round + 1} ${party.name}: ${rate} deliveries/s`);
      }
    }
  } finally {
    await receiver.stop();
  }
  const rows: Row[] = [];
  const targets: Target[] = [];
  for (const party of parties)
    rows.push({
      scenario: 'delivery',
      party: party.name,
      metric: 'deliveries/s',
      unit: '/s',
      spread: spread(runs[party.name]),
    });
  const bare = runs['bare signed-POST loop'];
  const boss = runs['pg-boss (PostgreSQL)'];
  const graphile = runs['graphile-worker (PostgreSQL)'];
  for (const [name, label] of [
    ['Shelfmark, SQLite', 'SQLite'],
    ['Shelfmark, PostgreSQL', 'PostgreSQL'],
  ] as const) {
    if (runs[name].length === 0) continue;
    const ofBare = ratios(runs[name], bare);
    rows.push({
      scenario: 'delivery',
      party: name,
      metric: 'of bare loop',
      unit: '%',
      spread: spread(ofBare.values.map((value) => value * 100)),
    });
    targets.push(
      target(
        'delivery',
        `delivery ${label} ≥ ${label === 'SQLite' ? 60 : 50} % of the bare signed-POST loop`,
        ofBare.median * 100,
        label === 'SQLite' ? 60 : 50,
        '%',
        'atLeast',
      ),
    );
    if (boss.length > 0) {
      const ofBoss = ratios(runs[name], boss);
      rows.push({ scenario: 'delivery', party: name, metric: '× pg-boss', unit: '×', spread: ofBoss });
      targets.push(target('delivery', `delivery ${label} ≥ 1.2× pg-boss`, ofBoss.median, 1.2, '×', 'atLeast'));
    }
    if (graphile.length > 0) {
      const ofGraphile = ratios(runs[name], graphile);
      rows.push({ scenario: 'delivery', party: name, metric: '× graphile-worker', unit: '×', spread: ofGraphile });
    }
  }
  return {
    rows,
    targets,
    notes: [
      `delivery: ${total} measured deliveries per run after ${warmup} unmeasured ones sent first by the same process (${SUBSCRIPTIONS} subscriptions × ${(warmup + total) / SUBSCRIPTIONS} school.created events), concurrency ${CONCURRENCY}, rate from the last warm-up arrival to the last arrival at the receiver; pg-boss ${PGBOSS.workers} workers × batches of ${PGBOSS.batchSize}, polling every 0.5 s, ${CONCURRENCY} POSTs in flight; graphile-worker concurrentJobs ${CONCURRENCY}, pool ${CONCURRENCY + 1}, local queue 500 and batched completions where its version has them`,
    ],
    raw: { deliveries: total, runs },
  };
}
