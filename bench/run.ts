/**
 * `npm run bench`: the orchestrator. It builds the server, then runs each scenario with every party in
 * a process of its own (the compiled server, autocannon, the webhook receiver, baselines and peers),
 * rounds interleaved, and prints the figures and the targets. Every run writes bench/out/ (ignored by
 * git); `--record` (or BENCH_RECORD=1) also replaces each scenario's file in bench/results/ and the
 * figures table of docs/performance.md, which is generated from those files.
 *
 *   npm run bench                         every scenario but history and writes, full length
 *   npm run bench -- --record             the same, recorded
 *   BENCH_QUICK=1 npm run bench           1 round, ~1 s per load, small counts (CI; never judged or recorded)
 *   npm run bench -- --only offers        one scenario: offers | catalogue | list-offers | token | delivery | scale-out |
 *                                         fanout | feed | latency | soak | history | writes (history and writes
 *                                         run only this way, time limit 2 h; quick with BENCH_QUICK=1)
 *   npm run bench -- --profile offers     CPU profile of the server under load: offers | token | delivery | feed
 *   npm run bench -- --profile delivery --engine postgres   the delivery worker on PostgreSQL (default sqlite)
 *
 * BENCH_ROUNDS, BENCH_DELIVERY_ROUNDS, BENCH_SECONDS, BENCH_DELIVERIES, BENCH_FANOUT override the lengths.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFiguresTable } from './lib/figures.js';
import { load, startReceiver } from './lib/measure.js';
import { killAll, killChildrenOnExit, ROOT } from './lib/proc.js';
import { topSelfTime } from './lib/profile.js';
import { OUT_DIR, RESULTS_DIR, recordScenario, recordWanted, writeRun } from './lib/record.js';
import { machine, svg, table, targetTable } from './lib/report.js';
import {
  accessToken,
  createClient,
  freshDatabase,
  postgresReachable,
  type Server,
  startServer,
} from './lib/shelfmark.js';
import type { Row, ScenarioResult, Settings, Target } from './lib/types.js';
import { catalogueScenario } from './scenarios/catalogue.js';
import { deliveryScenario, shelfmarkDelivery, singleWindow } from './scenarios/delivery.js';
import { fanoutScenario } from './scenarios/fanout.js';
import { FEED_PAGE_PATH, feedScenario, seedFeed } from './scenarios/feed.js';
import { historyScenario } from './scenarios/history.js';
import { latencyScenario } from './scenarios/latency.js';
import { listOffersScenario } from './scenarios/list-offers.js';
import { offersPath, offersScenario, seedOffers } from './scenarios/offers.js';
import { scaleOutScenario } from './scenarios/scale-out.js';
import { soakScenario } from './scenarios/soak.js';
import { tokenScenario } from './scenarios/token.js';
import { writesScenario } from './scenarios/writes.js';

const SCENARIOS = {
  offers: offersScenario,
  catalogue: catalogueScenario,
  'list-offers': listOffersScenario,
  token: tokenScenario,
  delivery: deliveryScenario,
  'scale-out': scaleOutScenario,
  fanout: fanoutScenario,
  feed: feedScenario,
  latency: latencyScenario,
  soak: soakScenario,
  history: historyScenario,
  writes: writesScenario,
} as const;
type ScenarioName = keyof typeof SCENARIOS;
/**
 * Scenarios a full run leaves out: history takes longer than all the others together (a million
 * deliveries written, pruned and copied for each load run on both engines), and its seed, prune and
 * backup are covered by the test suite; writes is a diagnostic of the audited write path with no
 * target of its own. Run them with --only (`BENCH_QUICK=1` for history's quick size).
 */
const OWN_RUN: readonly ScenarioName[] = ['history', 'writes'];
const PROFILES = ['offers', 'token', 'delivery', 'feed'] as const;
type ProfileName = (typeof PROFILES)[number];

const log = (line: string): void => void process.stdout.write(`${line}\n`);

function option(name: string): string | undefined {
  const args = process.argv.slice(2);
  const index = args.indexOf(name);
  if (index >= 0) return args[index + 1];
  return args.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: expected a positive number, got "${raw}"`);
  return value;
}

function settingsFromEnv(postgres: boolean): Settings {
  const quick = ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
  return {
    quick,
    rounds: envNumber('BENCH_ROUNDS', quick ? 1 : 3),
    seconds: envNumber('BENCH_SECONDS', quick ? 1 : 5),
    warmupSeconds: quick ? 0 : 1,
    deliveries: envNumber('BENCH_DELIVERIES', quick ? 500 : 5000),
    deliveryRounds: envNumber('BENCH_DELIVERY_ROUNDS', quick ? 1 : 5),
    deliveryWarm: envNumber('BENCH_DELIVERY_WARM', quick ? 1000 : 20_000),
    fanout: envNumber('BENCH_FANOUT', quick ? 1000 : 10_000),
    latencySeconds: quick ? 1 : 5,
    latencyRate: envNumber('BENCH_LATENCY_RATE', 200),
    postgres,
  };
}

function build(): void {
  log('building the server (npm run build)...');
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit', timeout: 180_000 });
  if (result.status !== 0) throw new Error(`npm run build failed (${String(result.status ?? result.signal)})`);
}

async function runAll(only: ScenarioName | undefined): Promise<void> {
  const postgres = await postgresReachable();
  const settings = settingsFromEnv(postgres);
  const host = machine();
  log(
    `Shelfmark bench${settings.quick ? ' (BENCH_QUICK: short, figures not judged)' : ''}: ${host.cpuModel}, ${host.cores} cores, node ${host.node}, load average ${host.loadAverage1m}`,
  );
  log(`${settings.rounds} round(s), ${settings.seconds} s per load run, every party in its own process`);
  if (!postgres) log('PostgreSQL is not reachable at 127.0.0.1:5432: the PostgreSQL parties are skipped');
  const rows: Row[] = [];
  const targets: Target[] = [];
  const notes: string[] = postgres ? [] : ['PostgreSQL unreachable: PostgreSQL parties skipped'];
  const raw: Record<string, unknown> = {};
  const results: Array<readonly [ScenarioName, ScenarioResult, number]> = [];
  const started = Date.now();
  for (const name of Object.keys(SCENARIOS) as ScenarioName[]) {
    if (only !== undefined && name !== only) continue;
    if (only === undefined && OWN_RUN.includes(name)) {
      log(`\n== ${name}: not part of a ${settings.quick ? 'quick' : 'full'} run; npm run bench -- --only ${name}`);
      continue;
    }
    log(`\n== ${name}`);
    const scenarioStarted = Date.now();
    const result: ScenarioResult = await SCENARIOS[name](settings, log);
    rows.push(...result.rows);
    targets.push(...result.targets);
    notes.push(...result.notes);
    raw[name] = result.raw;
    const scenarioSeconds = Math.round((Date.now() - scenarioStarted) / 1000);
    results.push([name, result, scenarioSeconds]);
    log(`  (${scenarioSeconds} s)`);
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  log(`\nResults (median of ${settings.rounds} interleaved round(s), min–max in brackets; ${seconds} s in all)\n`);
  log(table(rows));
  if (targets.length > 0) log(`\n${targetTable(targets)}`);
  for (const note of notes) log(`- ${note}`);
  const result = {
    when: new Date().toISOString(),
    mode: settings.quick ? 'quick' : only === undefined ? 'full' : `only ${only}`,
    machine: host,
    separateProcesses:
      'server (node dist/main/server.js), autocannon, webhook receiver, baselines and peers each in their own process',
    settings,
    durationSeconds: seconds,
    loadAverage1mAtEnd: machine().loadAverage1m,
    rows: rows.map((row) => ({ ...row, spread: { ...row.spread } })),
    targets,
    notes,
    raw,
  };
  const files = [writeRun(settings.quick ? 'quick' : only === undefined ? 'full' : `only-${only}`, result)];
  const chart = join(OUT_DIR, 'bench.svg');
  writeFileSync(chart, svg(targets, `${host.cores} cores, node ${host.node}; median of ${settings.rounds} rounds`));
  files.push(chart);
  if (recordWanted(process.argv.slice(2), process.env)) {
    if (settings.quick) log('\na quick run is never recorded: its figures are not judged');
    else files.push(...record(results, result));
  }
  log(`\nwritten: ${files.map((file) => file.replace(`${ROOT}/`, '')).join(', ')}`);
}

/** Each scenario's figures into bench/results/, then the performance page's table from them. */
function record(
  results: ReadonlyArray<readonly [ScenarioName, ScenarioResult, number]>,
  run: Record<string, unknown>,
): string[] {
  const { when, mode, machine: host, separateProcesses, settings } = run;
  const files = results.map(([name, result, durationSeconds]) =>
    recordScenario(name, result, { when, mode, machine: host, separateProcesses, settings, durationSeconds }),
  );
  const page = join(ROOT, 'docs', 'performance.md');
  const next = withFiguresTable(readFileSync(page, 'utf8'), RESULTS_DIR);
  if (next !== undefined) {
    writeFileSync(page, next);
    files.push(page);
  }
  return files;
}

async function profile(name: ProfileName): Promise<void> {
  const settings = settingsFromEnv(await postgresReachable());
  const dir = join(OUT_DIR, 'profiles', `${new Date().toISOString().replace(/[:.]/g, '-')}-${name}`);
  mkdirSync(dir, { recursive: true });
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const seconds = envNumber('BENCH_SECONDS', settings.quick ? 2 : 10);
  log(
    `CPU profile of the compiled server under the ${name} load (${name === 'delivery' ? `${settings.deliveries} deliveries` : `${seconds} s, 50 connections`})`,
  );
  if (name === 'delivery') {
    const receiver = await startReceiver();
    const engine = option('--engine') === 'postgres' ? 'postgres' : 'sqlite';
    try {
      const [rate] = await shelfmarkDelivery(engine, singleWindow(settings.deliveries), receiver, nodeArgs);
      log(`worker (profiled): ${rate} deliveries/s`);
    } finally {
      await receiver.stop();
    }
  } else {
    const db = await freshDatabase('sqlite');
    let server: Server | undefined;
    try {
      server = await startServer(db, { nodeArgs });
      // The bearer reads: the scope their client needs, their data, their path.
      const reads = {
        offers: { scope: 'offers:read', seed: seedOffers, path: offersPath },
        feed: { scope: 'lml:read', seed: seedFeed, path: FEED_PAGE_PATH },
      } as const;
      const read = name === 'offers' || name === 'feed' ? reads[name] : undefined;
      const client = await createClient(server, [read?.scope ?? 'offers:read']);
      let result: Awaited<ReturnType<typeof load>>;
      if (read !== undefined) {
        await read.seed(server);
        const token = await accessToken(server, client);
        result = await load({
          url: `${server.url}${read.path}`,
          headers: { authorization: `Bearer ${token}` },
          seconds,
        });
      } else {
        result = await load({ url: `${server.url}/api/auth/token`, headers: { authorization: client.basic }, seconds });
      }
      log(`server (profiled): ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms`);
      // SIGTERM: the server closes and exits by itself, which is when node writes the profile.
      const code = await server.stop();
      server = undefined;
      if (code !== 0) log(`the server exited with ${String(code)}`);
    } finally {
      await server?.stop();
      await db.drop();
    }
  }
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no .cpuprofile was written to ${dir}: the server did not exit cleanly`);
  const newest = files
    .map((file) => join(dir, file))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0] as string;
  const { totalMs, idleMs, top } = topSelfTime(newest, 25);
  log(
    `\nprofile: ${newest.replace(`${ROOT}/`, '')} (${totalMs} ms sampled, ${idleMs} ms idle, ${totalMs - idleMs} ms busy)`,
  );
  log('top 25 functions by self time:\n');
  log('| self ms | % of samples | function | location |\n|---:|---:|---|---|');
  for (const entry of top) log(`| ${entry.selfMs} | ${entry.share} | ${entry.function} | ${entry.location} |`);
}

async function main(): Promise<void> {
  const only = option('--only');
  const profiled = option('--profile');
  if (only !== undefined && !(only in SCENARIOS))
    throw new Error(`--only: expected one of ${Object.keys(SCENARIOS).join(', ')}, got "${only}"`);
  if (profiled !== undefined && !(PROFILES as readonly string[]).includes(profiled))
    throw new Error(`--profile: expected one of ${PROFILES.join(', ')}, got "${profiled}"`);
  build();
  if (profiled !== undefined) await profile(profiled as ProfileName);
  else await runAll(only as ScenarioName | undefined);
}

killChildrenOnExit();

// The whole run is bounded: a hung child never keeps CI waiting.
const deadline = setTimeout(
  () => {
    console.error('bench: overall time limit reached, stopping every child process');
    killAll();
    process.exit(1);
  },
  envNumber(
    'BENCH_TIME_LIMIT_SECONDS',
    (OWN_RUN as readonly string[]).includes(option('--only') ?? '') ? 120 * 60 : 30 * 60,
  ) * 1000,
);
deadline.unref();

main().then(
  () => {
    killAll();
    process.exit(0);
  },
  (error: unknown) => {
    console.error('bench failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    killAll();
    process.exit(1);
  },
);
