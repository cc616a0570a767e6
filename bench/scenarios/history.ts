/**
 * A year of history: the operator's, the scraper's and the partner's reads timed on a fresh
 * database and again with BENCH_HISTORY_DELIVERIES deliveries of history (default 1,000,000; 20,000
 * quick) written straight in SQL, on SQLite and PostgreSQL; the database's size; then a prune with the
 * default retention (`shelfmark prune`, its own process): its time, the rows before and after, that
 * nothing older than its retention is left and no pending delivery was touched, and the SQLite file's
 * size; then pruning while deliveries flow (history-load.ts). Figures are reported, never enforced.
 *
 *   BENCH_HISTORY_DELIVERIES=5000000      the reads and the prune on 5,000,000 (run once)
 *   BENCH_HISTORY_LOAD_DELIVERIES         history under the load runs (default: the smaller of the above and 1,000,000)
 *   BENCH_HISTORY_LOAD_ROUNDS             pairs of load runs (default BENCH_ROUNDS); 0 skips them
 *   BENCH_HISTORY_ENGINES                 sqlite,postgres (default both)
 *   BENCH_HISTORY_RENAME_SECONDS          measured renames per load run, in seconds (default 10; quick 2)
 *   BENCH_HISTORY_POSTGRES_RATE           renames/s offered on PostgreSQL (default 100; SQLite: BENCH_LATENCY_RATE)
 */
import { databaseBytes, HISTORY_TABLES, mb, rowCounts, withRunner } from '../lib/history-db.js';
import {
  type PruneCall,
  pendingChanged,
  pruneAvailable,
  RETENTION_DEFAULT_DAYS,
  retentionLeftovers,
  runPrune,
} from '../lib/history-prune.js';
import { availableReads, type Read, readsOf, timeReads } from '../lib/history-reads.js';
import { copySqlite, type HistoryDatabase, NO_PRUNER, seededDatabase } from '../lib/history-setup.js';
import { type Receiver, type Spread, spread, startReceiver } from '../lib/measure.js';
import { type Engine, startServer } from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, type Target, target } from '../lib/types.js';
import { type LoadResult, loadSpreads, pruneUnderLoad } from './history-load.js';

const FULL = 1_000_000;

interface LoadPlan {
  rounds: number;
  deliveries: number;
  renameSeconds: number;
  rate: Record<Engine, number>;
}
const READ_TIMES = 5;
/** A read with history meets its target within twice its fresh time or this, whichever is larger. */
const FLOOR_MS = 20;
const LABEL: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

function envCount(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number, got "${raw}"`);
  return value;
}

interface PruneResult {
  call: PruneCall;
  dryRun: PruneCall;
  /** Tables whose count in the dry run's answer differs from the prune's. */
  dryRunDiffers: string[];
  rowsBefore: Record<string, number>;
  rowsAfter: Record<string, number>;
  bytesBefore: number;
  bytesAfter: number;
  leftovers: Record<string, number>;
  pendingBefore: number;
  pendingTouched: string[];
  /** SQLite: the auto_vacuum mode and the free space left inside the file after the prune. */
  autoVacuum?: string;
  freeBytes?: number;
}

interface EngineResult {
  engine: Engine;
  reads: string[];
  fresh: Map<string, Spread>;
  history: Map<string, Spread>;
  freshBytes: number;
  historyBytes: number;
  seeded: HistoryDatabase['seeded'];
  prune: PruneResult | undefined;
  load: LoadResult | undefined;
}

/** Rows per table in `shelfmark prune --json`'s answer (its items summed; a dry run's too). */
function prunedRows(output: unknown): Record<string, number> | undefined {
  if (typeof output !== 'object' || output === null || !('items' in output) || !Array.isArray(output.items))
    return undefined;
  const rows: Record<string, number> = {};
  for (const item of output.items as { table?: unknown; rows?: unknown }[])
    if (typeof item.table === 'string' && typeof item.rows === 'number')
      rows[item.table] = (rows[item.table] ?? 0) + item.rows;
  return rows;
}

/** The SQLite space report in `shelfmark prune --json`'s answer (its vacuum step), if any. */
function spaceReport(output: unknown): { bytesBefore: number; bytesAfter: number } | undefined {
  if (typeof output !== 'object' || output === null || !('space' in output)) return undefined;
  const space = output.space;
  if (typeof space !== 'object' || space === null || !('bytesBefore' in space) || !('bytesAfter' in space))
    return undefined;
  return { bytesBefore: Number(space.bytesBefore), bytesAfter: Number(space.bytesAfter) };
}

async function prune(history: HistoryDatabase, log: (line: string) => void): Promise<PruneResult> {
  const { db, seeded } = history;
  const rowsBefore = await withRunner(db, rowCounts);
  const bytesBefore = await databaseBytes(db);
  // The dry run first: what it says would go must be what goes.
  const dryRun = await runPrune(db, ['--dry-run', '--json']);
  const startedAt = Date.now();
  // Nothing else runs here: the prune is timed unpaced (PRUNE_PAUSE_MS=0, the maintenance-window
  // setting), so the figure is its own work. The paced default is what the load runs below measure.
  const call = await runPrune(db, ['--json'], { PRUNE_PAUSE_MS: '0' });
  const dryRows = prunedRows(dryRun.output);
  const realRows = prunedRows(call.output);
  // Its cutoffs are a few seconds earlier than the prune's: a row or an hour's counters may differ.
  const dryRunDiffers = HISTORY_TABLES.filter((table) => {
    const [dry, real] = [dryRows?.[table] ?? Number.NaN, realRows?.[table] ?? Number.NaN];
    return !(Math.abs(dry - real) <= Math.max(2, real * 0.005));
  });
  const rowsAfter = await withRunner(db, rowCounts);
  const bytesAfter = await databaseBytes(db);
  const leftovers = await withRunner(db, (runner) => retentionLeftovers(runner, startedAt));
  const pendingTouched = await withRunner(db, (runner) => pendingChanged(runner, seeded.pending));
  const space =
    db.engine === 'sqlite'
      ? await withRunner(db, async (runner) => {
          const [row] = await runner.rows<{ mode: number; free: number; size: number }>(
            'select a.auto_vacuum as mode, f.freelist_count as free, s.page_size as size from pragma_auto_vacuum() a, pragma_freelist_count() f, pragma_page_size() s',
          );
          return {
            autoVacuum: ['none', 'full', 'incremental'][row?.mode ?? 0] ?? 'none',
            freeBytes: (row?.free ?? 0) * (row?.size ?? 0),
          };
        })
      : {};
  const changes = Object.keys(rowsBefore)
    .map((table) => `${table} ${rowsBefore[table]} → ${rowsAfter[table]}`)
    .join(', ');
  log(
    `  ${LABEL[db.engine]} prune (default retention: succeeded ${RETENTION_DEFAULT_DAYS.succeeded} d, failed ${RETENTION_DEFAULT_DAYS.failed} d; unpaced): ${call.seconds.toFixed(1)} s (dry run ${dryRun.seconds.toFixed(1)} s); ${changes}; ${mb(bytesBefore)} → ${mb(bytesAfter)} MB`,
  );
  return {
    call,
    dryRun,
    dryRunDiffers,
    rowsBefore,
    rowsAfter,
    bytesBefore,
    bytesAfter,
    leftovers,
    pendingBefore: seeded.pending.size,
    pendingTouched,
    ...space,
  };
}

async function engineRun(
  engine: Engine,
  deliveries: number,
  load: LoadPlan,
  receiver: Receiver,
  settings: Settings,
  log: (line: string) => void,
): Promise<EngineResult> {
  let reads: Read[] = [];
  let fresh = new Map<string, Spread>();
  const history = await seededDatabase(engine, receiver.hookUrl, deliveries, async (server, setup) => {
    reads = await availableReads(server, await readsOf(server, setup));
    fresh = await timeReads(server, reads, READ_TIMES);
  });
  try {
    const { db, seeded, freshBytes } = history;
    log(
      `  ${LABEL[engine]}: ${seeded.rows.deliveries} deliveries, ${seeded.rows.delivery_attempts} attempts, ${seeded.rows.events} events written in ${seeded.seconds.toFixed(1)} s (${seeded.pending.size} left pending)`,
    );
    const historyBytes = await databaseBytes(db);
    // The load runs copy the SQLite file before anything else touches it; PostgreSQL seeds each anew.
    const template =
      engine === 'sqlite' && load.rounds > 0 && load.deliveries === deliveries ? await copySqlite(history) : undefined;
    const server = await startServer(db, { env: NO_PRUNER });
    let timed: Map<string, Spread>;
    try {
      const available = new Set(reads.map((read) => read.name));
      timed = await timeReads(
        server,
        (await readsOf(server, history.setup)).filter((read) => available.has(read.name)),
        READ_TIMES,
      );
    } finally {
      await server.stop();
    }
    const names = reads.map((read) => read.name);
    const figures = { engine, reads: names, fresh, history: timed, freshBytes, historyBytes };
    for (const line of readTable(figures, deliveries)) log(line);
    const pruned = pruneAvailable() ? await prune(history, log) : undefined;
    if (pruned === undefined) log('  prune: this build has no `shelfmark prune` yet: skipped');
    let loadResult: LoadResult | undefined;
    try {
      if (load.rounds > 0 && pruned !== undefined) {
        const prepare = async (): Promise<HistoryDatabase> =>
          template !== undefined ? copySqlite(template) : seededDatabase(engine, receiver.hookUrl, load.deliveries);
        // Quick runs prune a small history: smaller batches make that prune last through the measured windows.
        const pruneEnv: Record<string, string> = settings.quick ? { PRUNE_BATCH_SIZE: '100' } : {};
        const renames = { rate: load.rate[engine], seconds: load.renameSeconds };
        loadResult = await pruneUnderLoad(engine, load.rounds, prepare, receiver, settings, renames, log, pruneEnv);
      }
    } finally {
      await template?.db.drop();
    }
    return {
      ...figures,
      seeded,
      prune: pruned,
      load: loadResult,
    };
  } finally {
    await history.db.drop();
  }
}

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : '—');

/** The printed table of one engine: each read fresh → with history, the ratio and the target's verdict. */
function readTable(
  result: Pick<EngineResult, 'engine' | 'reads' | 'fresh' | 'history' | 'freshBytes' | 'historyBytes'>,
  deliveries: number,
): string[] {
  const lines = [
    `  ${LABEL[result.engine]}: fresh → ${deliveries.toLocaleString('en-US')} deliveries of history (median of ${READ_TIMES}, ms)`,
    '  | read | fresh | with history | ratio | target ≤ max(2× fresh, 20 ms) |',
    '  |---|---:|---:|---:|---|',
  ];
  for (const name of result.reads) {
    const before = result.fresh.get(name)?.median ?? Number.NaN;
    const after = result.history.get(name)?.median ?? Number.NaN;
    const goal = Math.max(2 * before, FLOOR_MS);
    const verdict = after <= goal ? `met (${ms(goal)} ms)` : `missed (${ms(goal)} ms)`;
    lines.push(`  | ${name} | ${ms(before)} | ${ms(after)} | ${(after / before).toFixed(1)}× | ${verdict} |`);
  }
  lines.push(
    `  | database size (MB) | ${mb(result.freshBytes)} | ${mb(result.historyBytes)} | ${(result.historyBytes / result.freshBytes).toFixed(0)}× | |`,
  );
  return lines;
}

function engineFigures(
  result: EngineResult,
  deliveries: number,
  judged: boolean,
): {
  rows: Row[];
  targets: Target[];
  notes: string[];
} {
  const label = LABEL[result.engine];
  const party = `Shelfmark, ${label}`;
  const size = deliveries.toLocaleString('en-US');
  const rows: Row[] = [];
  const targets: Target[] = [];
  const notes: string[] = [];
  const row = (metric: string, unit: string, values: Spread): void =>
    void rows.push({ scenario: 'history', party, metric, unit, spread: values });
  for (const name of result.reads) {
    const fresh = result.fresh.get(name) ?? spread([]);
    const history = result.history.get(name) ?? spread([]);
    row(`${name}, fresh`, 'ms', fresh);
    row(`${name}, ${size} deliveries of history`, 'ms', history);
    if (judged)
      targets.push(
        target(
          'history',
          `history ${label}: ${name} ≤ max(2× fresh, ${FLOOR_MS} ms)`,
          history.median,
          Math.max(2 * fresh.median, FLOOR_MS),
          'ms',
          'atMost',
        ),
      );
  }
  row('database size, fresh', 'MB', spread([mb(result.freshBytes)]));
  row(`database size, ${size} deliveries of history`, 'MB', spread([mb(result.historyBytes)]));
  const pruned = result.prune;
  if (pruned !== undefined) {
    row('prune with the defaults (wall time)', 's', spread([pruned.call.seconds]));
    row('database size after the prune', 'MB', spread([mb(pruned.bytesAfter)]));
    const share = pruned.bytesAfter / pruned.bytesBefore;
    row('database size after ÷ before the prune', '×', spread([share]));
    const left = Object.values(pruned.leftovers).reduce((sum, n) => sum + n, 0);
    if (left > 0)
      notes.push(
        `history (${label}): the prune left rows older than their retention: ${JSON.stringify(pruned.leftovers)}`,
      );
    if (pruned.dryRunDiffers.length > 0)
      notes.push(
        `history (${label}): the dry run's counts differ from the prune's for ${pruned.dryRunDiffers.join(', ')}`,
      );
    if (pruned.pendingTouched.length > 0)
      notes.push(
        `history (${label}): the prune changed or removed pending deliveries: ${pruned.pendingTouched.join(', ')}`,
      );
    if (result.engine === 'sqlite') {
      const space = spaceReport(pruned.call.output);
      const step =
        space === undefined ? '' : `; its vacuum step: ${mb(space.bytesBefore)} → ${mb(space.bytesAfter)} MB of pages`;
      notes.push(
        `history (SQLite): the prune took the file from ${mb(pruned.bytesBefore)} to ${mb(pruned.bytesAfter)} MB (auto_vacuum=${pruned.autoVacuum}${step}); ${mb(pruned.freeBytes ?? 0)} MB of free pages left inside the file, which new rows reuse`,
      );
    } else
      notes.push(
        `history (PostgreSQL): the prune took the schema from ${mb(pruned.bytesBefore)} to ${mb(pruned.bytesAfter)} MB: the space of deleted rows stays in the tables, where autovacuum makes it reusable by new rows`,
      );
    if (judged) {
      targets.push(
        target(
          'history',
          `history ${label}: rows older than their retention after the prune`,
          left,
          0,
          'rows',
          'atMost',
        ),
      );
      targets.push(
        target(
          'history',
          `history ${label}: pending deliveries touched by the prune (of ${pruned.pendingBefore})`,
          pruned.pendingTouched.length,
          0,
          'rows',
          'atMost',
        ),
      );
      if (result.engine === 'sqlite')
        targets.push(
          target('history', 'history SQLite: file after the prune ≤ 0.35× before', share, 0.35, '×', 'atMost'),
        );
    }
  }
  const load = result.load;
  if (load !== undefined) {
    const s = loadSpreads(load);
    row('deliveries/s while not pruning', '/s', s.rateWithout);
    row('deliveries/s while pruning', '/s', s.rateWith);
    row('deliveries/s, pruning ÷ not', '×', load.rateRatio);
    row('commit → first attempt p99, not pruning', 'ms', s.p99Without);
    row('commit → first attempt p99, pruning', 'ms', s.p99With);
    row('commit → first attempt p99, pruning ÷ not (per round)', '×', load.p99Ratio);
    const pooled = load.pooledP99;
    row('commit → first attempt p99 of all rounds, not pruning', 'ms', spread([pooled.without]));
    row('commit → first attempt p99 of all rounds, pruning', 'ms', spread([pooled.with]));
    row('commit → first attempt p99 of all rounds, pruning ÷ not', '×', spread([pooled.ratio]));
    if (load.minOverlap < 1)
      notes.push(
        `history (${label}): in at least one run the prune deleted during only ${Math.round(load.minOverlap * 100)} % of the measured windows`,
      );
    if (judged) {
      targets.push(
        target(
          'history',
          `history ${label}: deliveries/s while pruning ≥ 0.9× not pruning`,
          load.rateRatio.median,
          0.9,
          '×',
          'atLeast',
        ),
      );
      targets.push(
        target(
          'history',
          `history ${label}: commit → first attempt p99 while pruning ≤ 1.1× not pruning (${pooled.samples.toLocaleString('en-US')} renames of each, all rounds)`,
          pooled.ratio,
          1.1,
          '×',
          'atMost',
        ),
      );
    }
  }
  return { rows, targets, notes };
}

export async function historyScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const deliveries = envCount('BENCH_HISTORY_DELIVERIES', settings.quick ? 20_000 : FULL);
  const load: LoadPlan = {
    deliveries: envCount('BENCH_HISTORY_LOAD_DELIVERIES', Math.min(deliveries, FULL)),
    rounds: envCount('BENCH_HISTORY_LOAD_ROUNDS', settings.rounds),
    renameSeconds: envCount('BENCH_HISTORY_RENAME_SECONDS', settings.quick ? 2 : 10),
    // On a small host PostgreSQL takes fewer audited writes a second than 200 beside the run's other
    // parties (the writes scenario): offered more than it takes, the renames queue up and the p99
    // measures the queue, not the prune.
    rate: {
      sqlite: settings.latencyRate,
      postgres: envCount('BENCH_HISTORY_POSTGRES_RATE', Math.min(settings.latencyRate, 100)),
    },
  };
  const wanted = (process.env.BENCH_HISTORY_ENGINES ?? 'sqlite,postgres').split(',').map((name) => name.trim());
  const engines = (['sqlite', 'postgres'] as const).filter(
    (engine) => wanted.includes(engine) && (engine === 'sqlite' || settings.postgres),
  );
  // Targets are judged on the size only, and never on a quick run.
  const judged = !settings.quick && deliveries >= FULL;
  const rows: Row[] = [];
  const targets: Target[] = [];
  const notes: string[] = [];
  const raw: Record<string, unknown> = { deliveries, load };
  const receiver = await startReceiver();
  try {
    for (const engine of engines) {
      const result = await engineRun(engine, deliveries, load, receiver, settings, log);
      const figures = engineFigures(result, deliveries, judged);
      rows.push(...figures.rows);
      targets.push(...figures.targets);
      notes.push(...figures.notes);
      raw[engine] = {
        fresh: Object.fromEntries(result.fresh),
        history: Object.fromEntries(result.history),
        freshBytes: result.freshBytes,
        historyBytes: result.historyBytes,
        seeded: { rows: result.seeded.rows, pending: result.seeded.pending.size, seconds: result.seeded.seconds },
        prune: result.prune,
        load: result.load,
      };
    }
  } finally {
    await receiver.stop();
  }
  if (!judged)
    notes.push(
      `history: ${deliveries.toLocaleString('en-US')} deliveries of history${settings.quick ? ' (quick run)' : ''}; the targets are judged at ${FULL.toLocaleString('en-US')} or more, never on a quick run`,
    );
  notes.push(
    `history: ${deliveries.toLocaleString('en-US')} deliveries of history written in SQL (${(deliveries / 10).toLocaleString('en-US')} school.created events × 10 subscriptions of one client, 2 % failed after 5 attempts, the rest succeeded at the first, evenly over 180 days, the hourly counters and subscription health filled as completions leave them); each read ${READ_TIMES}× after one unmeasured call, median; prune: \`shelfmark prune\` with the default retention; pruning under load: ${load.rounds} interleaved pair(s) of runs on ${load.deliveries.toLocaleString('en-US')} deliveries of history each, a backlog drained by a \`--role worker\` process and school renames for ${load.renameSeconds} s (SQLite ${load.rate.sqlite}/s, PostgreSQL ${load.rate.postgres}/s) on a \`--role all\` server, with and without a prune running`,
  );
  return { rows, targets, notes, raw };
}
