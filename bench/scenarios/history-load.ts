/**
 * Pruning while deliveries flow: the same measurement on a database with a million deliveries of
 * history, once with `shelfmark prune` (its own process, default settings) deleting that history
 * throughout, once without; runs interleaved (without, with, with, without, ...) after one unmeasured
 * run without, each on a fresh copy. The p99s of a mode are also taken over all its rounds' renames.
 *
 * One run: a `--role api` server queues a backlog (schools created over the admin API, one delivery
 * per school.created subscription) and stops; the prune starts (with) and the bench waits until it is
 * deleting, and in both modes until 3 s after the API server stopped; a `--role worker` process drains
 * the backlog to the receiver, timed at the receiver after an unmeasured eleventh (the delivery
 * scenario's machinery); then a `--role all` server takes school renames at the offered rate
 * (`RenameLoad`, per engine; open loop; a second of them unmeasured first, as the server has just
 * started) for one school.modified subscription, and the time from each call being sent to the first
 * arrival gives commit → first attempt p50/p99.
 * The prune's start and end are set against those windows: how much of them it overlapped is reported.
 */

import { withRunner } from '../lib/history-db.js';
import { startPrune } from '../lib/history-prune.js';
import { type HistoryDatabase, NO_PRUNER } from '../lib/history-setup.js';
import {
  type DrainPlan,
  epochNow,
  percentile,
  planTotal,
  type Receiver,
  ratios,
  spread,
  windowRates,
} from '../lib/measure.js';
import { type Child, sleep } from '../lib/proc.js';
import { admin, type Database, type Engine, pool, startServer } from '../lib/shelfmark.js';
import type { Settings } from '../lib/types.js';
import { CONCURRENCY } from './delivery.js';

export type Mode = 'without' | 'with';

export interface LoadRun {
  mode: Mode;
  deliveriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Rename calls answered per second (offered: the latency rate): below it, a backlog built up. */
  answeredPerSecond: number;
  /** Wall time of the run, its database's preparation excluded. */
  seconds: number;
  /** Share of the measured windows (drain and latency) during which the prune was deleting; null without. */
  pruneOverlap: number | null;
  /** Seconds from the prune's start until it was deleting, and until it ended (null: still running at the end). */
  pruneStartedAfter: number | null;
  pruneEndedAfter: number | null;
}

export interface LoadResult {
  runs: LoadRun[];
  rate: { without: number[]; with: number[] };
  p99: { without: number[]; with: number[] };
  /** Per-round ratios, with ÷ without. */
  rateRatio: ReturnType<typeof ratios>;
  p99Ratio: ReturnType<typeof ratios>;
  /**
   * The p99 of every rename of a mode, all rounds pooled, and its ratio: the tenth-slowest of 1,000 in
   * one run moves severalfold from run to run without any pruning, the pooled one much less.
   */
  pooledP99: { without: number; with: number; ratio: number; samples: number };
  minOverlap: number;
}

/** The renames' pace and measured length (history.ts sets them per engine). */
export interface RenameLoad {
  rate: number;
  seconds: number;
}

/** The pause between the backlog's queueing and its drain, the same in both modes (see loadRun). */
const SETTLE_MS = 3000;

interface Window {
  from: number;
  to: number;
}

/** Waits until the prune has deleted its first batch: the oldest succeeded delivery of a subscription changed. */
async function untilDeleting(db: Database, subscriptionId: string, prune: Child): Promise<void> {
  const oldest = (): Promise<number> =>
    withRunner(db, async (runner) => {
      const rows = await runner.rows<{ t: number | string | null }>(
        `select min(created_at) as t from deliveries where subscription_id = '${subscriptionId}' and status = 'succeeded'`,
      );
      return Number(rows[0]?.t ?? 0);
    });
  const first = await oldest();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (prune.ended() !== undefined) return;
    if ((await oldest()) !== first) return;
    await sleep(100);
  }
  throw new Error(`the prune deleted nothing within 120 s; stderr: ${prune.stderr().slice(-1000)}`);
}

/** Creates schools over the admin API (8 in flight); returns their identifiers. */
async function createSchools(server: { url: string }, count: number, tag: string): Promise<string[]> {
  const identifiers: string[] = new Array(count);
  await pool(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const school = await admin<{ identifier: string }>(server, '/schools', 'POST', {
        name: `History bench ${tag} ${i}`,
        type: 'VO',
      });
      identifiers[i] = school.identifier;
    },
  );
  return identifiers;
}

/** Renames schools at `rate`/s (open loop) and times each call's send to the first arrival of its school.modified. */
async function latencies(
  server: { url: string },
  receiver: Receiver,
  schools: readonly string[],
  rate: number,
  count: number,
): Promise<{ values: number[]; window: Window; answered: number }> {
  await receiver.reset();
  const sent = new Map<string, number>();
  const calls: Promise<unknown>[] = [];
  const start = epochNow() + 50;
  for (let i = 0; i < count; i++) {
    const identifier = schools[i] as string;
    const wait = start + (i * 1000) / rate - epochNow();
    if (wait > 1) await sleep(wait);
    sent.set(identifier, epochNow());
    calls.push(admin(server, `/schools/${identifier}`, 'PATCH', { name: `History bench renamed ${i}` }));
  }
  await Promise.all(calls);
  const answered = Math.round(count / ((epochNow() - start) / 1000));
  const stats = await receiver.waitFor(count, 30_000);
  if (stats.distinct < count) throw new Error(`history load: ${stats.distinct} of ${count} renames delivered`);
  const arrivals = await receiver.arrivals();
  const values = [...sent].map(([identifier, at]) => (arrivals[identifier] ?? Number.NaN) - at).sort((a, b) => a - b);
  return { values, window: { from: start, to: stats.nth ?? epochNow() }, answered };
}

/** The share of the windows' time during which [from, to] held. */
function overlap(windows: readonly Window[], from: number, to: number): number {
  const total = windows.reduce((sum, w) => sum + (w.to - w.from), 0);
  const covered = windows.reduce((sum, w) => sum + Math.max(0, Math.min(w.to, to) - Math.max(w.from, from)), 0);
  return total > 0 ? covered / total : Number.NaN;
}

async function loadRun(
  mode: Mode,
  history: HistoryDatabase,
  receiver: Receiver,
  settings: Settings,
  renames: RenameLoad,
  pruneEnv: Record<string, string>,
): Promise<LoadRun & { latencies: number[] }> {
  const { db, setup } = history;
  const latencyCount = Math.round(renames.rate * renames.seconds);
  // The server taking the renames has just started: a second of them first, unmeasured, warms its code.
  const warmCount = Math.round(renames.rate);
  const perSchool = setup.subscriptionIds.length;
  const schoolCount = Math.max(Math.ceil((settings.deliveries * 2.2) / perSchool), warmCount + latencyCount);
  const total = schoolCount * perSchool;
  const plan: DrainPlan = { warmup: Math.round(total / 11), size: total - Math.round(total / 11), windows: 1 };
  const began = epochNow();
  const api = await startServer(db, { role: 'api', env: NO_PRUNER });
  let schools: string[];
  try {
    schools = await createSchools(api, schoolCount, mode);
  } finally {
    await api.stop();
  }
  // Both modes start the backlog at the same time after the API server stopped: the prune's start and
  // its first deleted batch fall inside this pause, and without a prune the database has the same rest.
  const settled = epochNow() + SETTLE_MS;
  let prune: Child | undefined;
  let pruneStart = 0;
  let deletingAt = Number.NaN;
  let endedAt: number | undefined;
  try {
    if (mode === 'with') {
      pruneStart = epochNow();
      prune = startPrune(db, [], pruneEnv);
      prune.process.on('exit', () => {
        endedAt = epochNow();
      });
      await untilDeleting(db, setup.subscriptionIds[0] as string, prune);
      deletingAt = epochNow();
    }
    const rest = settled - epochNow();
    if (rest > 0) await sleep(rest);
    await receiver.reset();
    const worker = await startServer(db, {
      role: 'worker',
      env: { ...NO_PRUNER, WEBHOOK_CONCURRENCY: String(CONCURRENCY) },
    });
    let drained: Awaited<ReturnType<Receiver['waitFor']>>;
    let code: number | string;
    try {
      drained = await receiver.waitFor(planTotal(plan), Math.max(60_000, total * 20));
    } finally {
      code = await worker.stop();
    }
    if (code !== 0) throw new Error(`the worker exited with ${String(code)}`);
    if (drained.distinct < total) throw new Error(`history load: ${drained.distinct} of ${total} delivered`);
    const [rate] = await windowRates(receiver, plan);
    const warm = await receiver.waitFor(planTotal(plan), 0, plan.warmup);
    const drainWindow = { from: warm.kth ?? Number.NaN, to: warm.nth ?? Number.NaN };
    const server = await startServer(db, { env: NO_PRUNER });
    let timed: Awaited<ReturnType<typeof latencies>>;
    try {
      await latencies(server, receiver, schools.slice(0, warmCount), renames.rate, warmCount);
      timed = await latencies(server, receiver, schools.slice(warmCount), renames.rate, latencyCount);
    } finally {
      await server.stop();
    }
    const windows = [drainWindow, timed.window];
    return {
      mode,
      latencies: timed.values,
      deliveriesPerSecond: rate ?? Number.NaN,
      p50Ms: percentile(timed.values, 0.5),
      p99Ms: percentile(timed.values, 0.99),
      answeredPerSecond: timed.answered,
      seconds: (epochNow() - began) / 1000,
      pruneOverlap: prune === undefined ? null : overlap(windows, deletingAt, endedAt ?? Number.POSITIVE_INFINITY),
      pruneStartedAfter: prune === undefined ? null : (deletingAt - pruneStart) / 1000,
      pruneEndedAfter: endedAt === undefined ? null : (endedAt - pruneStart) / 1000,
    };
  } finally {
    // The database is thrown away: a prune still running is stopped (SIGTERM).
    await prune?.stop('SIGTERM', 15_000);
  }
}

/**
 * Rounds of a pair of runs, the order reversed every other round; `prepare` gives each run its own
 * database with the history, and each is dropped after its run.
 */
export async function pruneUnderLoad(
  engine: Engine,
  rounds: number,
  prepare: () => Promise<HistoryDatabase>,
  receiver: Receiver,
  settings: Settings,
  renames: RenameLoad,
  log: (line: string) => void,
  pruneEnv: Record<string, string> = {},
): Promise<LoadResult> {
  const runs: LoadRun[] = [];
  const pooled = { without: [] as number[], with: [] as number[] };
  // The first run of a series ran cold (SQLite: 4,000 deliveries/s and a p99 of 169 ms where the others
  // ran 6,600-8,500/s and 12-21 ms), and it is always a run without pruning: one unmeasured run first.
  const schedule: { mode: Mode; round: number | undefined }[] =
    rounds > 0 ? [{ mode: 'without', round: undefined }] : [];
  for (let round = 0; round < rounds; round++)
    for (const mode of round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const))
      schedule.push({ mode, round });
  for (const { mode, round } of schedule) {
    const prepared = performance.now();
    const history = await prepare();
    const preparedSeconds = (performance.now() - prepared) / 1000;
    try {
      const { latencies: values, ...run } = await loadRun(mode, history, receiver, settings, renames, pruneEnv);
      if (round === undefined) {
        log(`  ${engine}: one run without pruning, unmeasured (warm-up)`);
        continue;
      }
      runs.push(run);
      pooled[mode].push(...values);
      const pruned =
        run.pruneOverlap === null
          ? ''
          : `; the prune was deleting from ${run.pruneStartedAfter?.toFixed(1)} s after its start${run.pruneEndedAfter === null ? ' to past the end' : ` to ${run.pruneEndedAfter.toFixed(1)} s`}, ${Math.round(run.pruneOverlap * 100)} % of the measured time`;
      log(
        `  ${engine} round ${round + 1} ${mode} pruning: ${run.deliveriesPerSecond} deliveries/s, commit → first attempt p50 ${run.p50Ms.toFixed(1)} ms, p99 ${run.p99Ms.toFixed(1)} ms (${run.answeredPerSecond} renames/s answered)${pruned}; ${preparedSeconds.toFixed(0)} s to prepare the database, ${run.seconds.toFixed(0)} s to run`,
      );
    } finally {
      await history.db.drop();
    }
  }
  // Per mode in round order (each round runs each mode once), so index i of both is round i.
  const ofMode = (mode: Mode, figure: (run: LoadRun) => number): number[] =>
    runs.filter((run) => run.mode === mode).map(figure);
  const result = {
    without: ofMode('without', (run) => run.deliveriesPerSecond),
    with: ofMode('with', (run) => run.deliveriesPerSecond),
  };
  const p99 = { without: ofMode('without', (run) => run.p99Ms), with: ofMode('with', (run) => run.p99Ms) };
  const overlaps = runs.flatMap((run) => (run.pruneOverlap === null ? [] : [run.pruneOverlap]));
  const p99Of = (values: number[]): number =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.99,
    );
  const pooledP99 = { without: p99Of(pooled.without), with: p99Of(pooled.with) };
  return {
    pooledP99: { ...pooledP99, ratio: pooledP99.with / pooledP99.without, samples: pooled.with.length },
    runs,
    rate: result,
    p99,
    rateRatio: ratios(result.with, result.without),
    p99Ratio: ratios(p99.with, p99.without),
    minOverlap: overlaps.length === 0 ? Number.NaN : Math.min(...overlaps),
  };
}

export const loadSpreads = (result: LoadResult) => ({
  rateWithout: spread(result.rate.without),
  rateWith: spread(result.rate.with),
  p99Without: spread(result.p99.without),
  p99With: spread(result.p99.with),
});
