/**
 * Offers on a realistic catalogue: 200,000 offers over 100,000 EANs (BENCH_QUICK: 20,000 over 10,000;
 * BENCH_CATALOGUE_OFFERS sets the count, two offers per EAN), imported with the CLI (`shelfmark offers
 * import`) while the server runs, on SQLite and on PostgreSQL. The query mix (bench/lib/catalogue-data.ts):
 * 60 % one EAN, 40 % ten, Zipf-drawn, 5 % unknown, 10 connections. Against two baselines on the same
 * data, each in its own process: a bare Fastify querying per request, and one serving every offer
 * pre-serialised per EAN from memory (the ceiling). Before any load, sampled queries must answer the
 * same bytes on all three; after the rounds an offer withdrawn through the admin API must vanish at once.
 *
 * Warm: rounds after an unmeasured warm-up, parties interleaved. Cold: each party restarted on the
 * same data and loaded for its first 3 s once it is ready, as a proxy routing by readiness would send
 * it traffic (Shelfmark: /readyz, after its first reading of the catalogue; the ceiling: once it has
 * serialised every offer), interleaved likewise; the seconds from start to ready are a figure of their
 * own. Server CPU per request from /proc.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { catalogueQueries, writeCatalogueCsv } from '../lib/catalogue-data.js';
import {
  baselineParty,
  type CatalogueParty,
  type MixRun,
  restart,
  runMix,
  shelfmarkParty,
} from '../lib/catalogue-parties.js';
import { processCpu } from '../lib/cpu.js';
import { ratios, type Spread, spread } from '../lib/measure.js';
import { sleep, spawnNode } from '../lib/proc.js';
import {
  ADMIN_TOKEN,
  accessToken,
  admin,
  createClient,
  type Database,
  type Engine,
  freshDatabase,
  type Server,
  startServer,
} from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, type Target, target } from '../lib/types.js';

const COLD_SECONDS = 3;

interface Sizes {
  offers: number;
  eans: number;
  samples: number;
  warmupSeconds: number;
}

function sizes(settings: Settings): Sizes {
  const offers = Number(process.env.BENCH_CATALOGUE_OFFERS ?? (settings.quick ? 10_000 : 200_000));
  return {
    offers,
    eans: Math.round(offers / 2),
    samples: settings.quick ? 50 : 300,
    warmupSeconds: settings.quick ? 0 : 5,
  };
}

interface Imported {
  /** Offers a second over the whole run of the command, its start included. */
  rate: number;
  seconds: number;
  /** The rate the command itself reports once it has read the file's size (its last progress line). */
  ownRate: number;
  /** CPU time of the command's process a offer (sampled every 100 ms until it ends). */
  cpuMicrosPerOffer: number;
}

/** `shelfmark offers import` in a process of its own against the running server's database. */
async function importCsv(db: Database, csv: string, offers: number): Promise<Imported> {
  const started = performance.now();
  const child = spawnNode('shelfmark offers import', join('bin', 'shelfmark.js'), ['offers', 'import', csv, '--json'], {
    env: { DATABASE_URL: db.url, ADMIN_TOKEN, SEED: 'none', LOG_LEVEL: 'warn' },
  });
  let cpu = 0;
  const sampler = setInterval(() => {
    cpu = Math.max(cpu, processCpu(child.pid));
  }, 100);
  const code = await child.exited(600_000).finally(() => clearInterval(sampler));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`offers import exited with ${String(code)}: ${child.stderr().slice(-2000)}`);
  const summary = JSON.parse(child.lines.join('\n')) as { created: number };
  if (summary.created !== offers) throw new Error(`offers import created ${summary.created} of ${offers} offers`);
  const own = /(\d+) rows\/s\s*$/.exec(child.stderr().trim().split('\n').at(-1) ?? '');
  return {
    rate: Math.round(offers / seconds),
    seconds: Math.round(seconds * 10) / 10,
    ownRate: own === null ? Number.NaN : Number(own[1]),
    cpuMicrosPerOffer: Math.round((cpu * 1e6) / offers),
  };
}

/**
 * Waits until the server has done what the import left it (PostgreSQL: its feed positions every
 * event), so that work is not measured as the first party's.
 */
async function settle(db: Database): Promise<void> {
  if (db.engine !== 'postgres') return;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ n: string }>('select count(*) as n from events where seq is null');
      if (Number(rows[0]?.n ?? 0) === 0) return;
      await sleep(500);
    }
  } finally {
    await client.end();
  }
}

/** Every sampled query answers the same bytes on every party, or the run stops. */
async function checkIdentical(parties: readonly CatalogueParty[], paths: readonly string[]): Promise<number> {
  for (const path of paths) {
    const bodies = await Promise.all(
      parties.map(async (party) => {
        const response = await fetch(`${party.running.url}${path}`, { headers: party.headers });
        const body = await response.text();
        if (response.status !== 200) throw new Error(`${party.name} answered ${response.status} to ${path}: ${body}`);
        return body;
      }),
    );
    const differing = parties.findIndex((_party, index) => bodies[index] !== bodies[0]);
    if (differing > 0)
      throw new Error(
        `catalogue: ${parties[differing]?.name} and ${parties[0]?.name} answer ${path} differently:\n${bodies[differing]?.slice(0, 400)}\n${bodies[0]?.slice(0, 400)}`,
      );
  }
  return paths.length;
}

/** An offer withdrawn through the admin API is gone from the very next answer. */
async function checkWithdrawn(party: CatalogueParty, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const get = async (): Promise<{ id: number }[]> =>
      (await (await fetch(`${party.running.url}${path}`, { headers: party.headers })).json()) as { id: number }[];
    const offer = (await get())[0];
    if (offer === undefined) continue;
    await admin({ url: party.running.url }, `/offers/${offer.id}`, 'PATCH', { status: 'withdrawn' });
    if ((await get()).some((found) => found.id === offer.id))
      throw new Error(`catalogue: offer ${offer.id} was still answered after it was withdrawn`);
    return;
  }
  throw new Error('catalogue: no sampled query had an offer to withdraw');
}

interface EngineRuns {
  engine: Engine;
  import: Imported;
  identical: number;
  warm: Record<string, MixRun[]>;
  cold: Record<string, ColdRun[]>;
}

/** A run after a restart, with the seconds the party took from its start to ready. */
type ColdRun = MixRun & { readySeconds?: number };

async function runEngine(
  engine: Engine,
  settings: Settings,
  files: { csv: string; paths: string; samples: string[] },
  size: Sizes,
  log: (line: string) => void,
): Promise<EngineRuns> {
  const label = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const db = await freshDatabase(engine);
  let server: Server | undefined;
  const parties: CatalogueParty[] = [];
  try {
    server = await startServer(db);
    const imported = await importCsv(db, files.csv, size.offers);
    log(
      `  ${label}: ${size.offers} offers imported in ${imported.seconds} s (${imported.rate} offers/s; ${imported.ownRate} rows/s by the command's own count; ${imported.cpuMicrosPerOffer} µs of its CPU an offer) while the server ran`,
    );
    await settle(db);
    const token = await accessToken(server, await createClient(server, ['offers:read']));
    parties.push(await shelfmarkParty(`Shelfmark, ${label}`, db, server, { authorization: `Bearer ${token}` }));
    server = undefined;
    parties.push(await baselineParty(`straightforward Fastify, ${label}`, 'plain', db));
    parties.push(await baselineParty(`in-memory ceiling, ${label}`, 'memory', db));
    const identical = await checkIdentical(parties, files.samples);
    log(`  ${label}: ${identical} sampled queries answered byte-identically by all three`);
    for (const party of parties) await runMix(party, files.paths, size.warmupSeconds);
    const warm: Record<string, MixRun[]> = {};
    const cold: Record<string, ColdRun[]> = {};
    for (const phase of ['warm', 'cold'] as const) {
      for (let round = 0; round < settings.rounds; round++) {
        const order = round % 2 === 0 ? parties : [...parties].reverse();
        for (const party of order) {
          const readySeconds = phase === 'cold' ? await restart(party) : undefined;
          const run = {
            ...(await runMix(party, files.paths, phase === 'warm' ? settings.seconds : COLD_SECONDS)),
            readySeconds,
          };
          if (run.non2xx + run.errors > 0)
            throw new Error(
              `${party.name}: ${run.non2xx} non-2xx ${JSON.stringify(run.statusCodes)}, ${run.errors} errors`,
            );
          const runs = phase === 'warm' ? warm : cold;
          runs[party.kind] = [...(runs[party.kind] ?? []), run];
          log(
            `  ${phase} round ${round + 1} ${party.name}: ${readySeconds === undefined ? '' : `ready ${readySeconds.toFixed(1)} s after its start; `}${run.requestsPerSecond} req/s, p99 ${run.p99Ms} ms, ${run.serverCpuMicros} µs CPU/request${engine === 'postgres' ? ` (+${run.postgresCpuMicros} µs PostgreSQL)` : ''}`,
          );
        }
      }
    }
    await checkWithdrawn(parties[0] as CatalogueParty, files.samples);
    return { engine, import: imported, identical, warm, cold };
  } finally {
    await server?.stop();
    for (const party of parties) await party.running.stop().catch(() => undefined);
    await db.drop();
  }
}

const percent = (ratio: Spread): Spread => ({
  median: ratio.median * 100,
  min: ratio.min * 100,
  max: ratio.max * 100,
  values: ratio.values.map((value) => value * 100),
});

function figures(runs: EngineRuns, size: Sizes): { rows: Row[]; targets: Target[] } {
  const label = runs.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const rows: Row[] = [];
  const rate = (list: MixRun[] | undefined): number[] => (list ?? []).map((run) => run.requestsPerSecond);
  const names = { shelfmark: 'Shelfmark', plain: 'straightforward Fastify', memory: 'in-memory ceiling' } as const;
  for (const kind of ['shelfmark', 'plain', 'memory'] as const) {
    const party = `${names[kind]}, ${label}`;
    for (const [phase, list] of [
      ['warm', runs.warm[kind]],
      ['cold (first 3 s once ready)', runs.cold[kind]],
    ] as const) {
      rows.push({ scenario: 'catalogue', party, metric: `${phase} req/s`, unit: 'req/s', spread: spread(rate(list)) });
      rows.push({
        scenario: 'catalogue',
        party,
        metric: `${phase} server CPU/request`,
        unit: 'µs',
        spread: spread((list ?? []).map((run) => run.serverCpuMicros)),
      });
      if (runs.engine === 'postgres')
        rows.push({
          scenario: 'catalogue',
          party,
          metric: `${phase} PostgreSQL CPU/request`,
          unit: 'µs',
          spread: spread((list ?? []).map((run) => run.postgresCpuMicros)),
        });
    }
    rows.push({
      scenario: 'catalogue',
      party,
      metric: 'start to ready',
      unit: 's',
      spread: spread((runs.cold[kind] ?? []).map((run) => run.readySeconds ?? Number.NaN)),
    });
    rows.push({
      scenario: 'catalogue',
      party,
      metric: 'warm RSS peak',
      unit: 'MiB',
      spread: spread((runs.warm[kind] ?? []).map((run) => run.rssPeakMiB)),
    });
    rows.push({
      scenario: 'catalogue',
      party,
      metric: 'warm p99',
      unit: 'ms',
      spread: spread((runs.warm[kind] ?? []).map((run) => run.p99Ms)),
    });
  }
  const ofCeiling = percent(ratios(rate(runs.warm.shelfmark), rate(runs.warm.memory)));
  const ofPlain = ratios(rate(runs.warm.shelfmark), rate(runs.warm.plain));
  const coldOfWarm = percent(ratios(rate(runs.cold.shelfmark), rate(runs.warm.shelfmark)));
  const coldOfPlain = ratios(rate(runs.cold.shelfmark), rate(runs.cold.plain));
  const party = `Shelfmark, ${label}`;
  rows.push({ scenario: 'catalogue', party, metric: 'warm, of the in-memory ceiling', unit: '%', spread: ofCeiling });
  rows.push({
    scenario: 'catalogue',
    party,
    metric: 'warm, of the straightforward server',
    unit: '×',
    spread: ofPlain,
  });
  rows.push({ scenario: 'catalogue', party, metric: 'cold, of its warm rate', unit: '%', spread: coldOfWarm });
  rows.push({
    scenario: 'catalogue',
    party,
    metric: 'cold, of the straightforward server',
    unit: '×',
    spread: coldOfPlain,
  });
  rows.push({ scenario: 'catalogue', party, metric: 'import', unit: 'offers/s', spread: spread([runs.import.rate]) });
  rows.push({
    scenario: 'catalogue',
    party,
    metric: 'import, by the command',
    unit: 'rows/s',
    spread: spread([runs.import.ownRate]),
  });
  rows.push({
    scenario: 'catalogue',
    party,
    metric: 'import, CPU of the command an offer',
    unit: 'µs',
    spread: spread([runs.import.cpuMicrosPerOffer]),
  });
  const ranged = (t: Target, s: Spread): Target => ({ ...t, range: [s.min, s.max] });
  const offers = size.offers.toLocaleString('en-US');
  const targets = [
    ranged(
      target(
        'catalogue',
        `catalogue ${label}: warm ≥ 75 % of the in-memory ceiling`,
        ofCeiling.median,
        75,
        '%',
        'atLeast',
      ),
      ofCeiling,
    ),
    ranged(
      target(
        'catalogue',
        `catalogue ${label}: warm ≥ 2× the straightforward server`,
        ofPlain.median,
        2,
        '×',
        'atLeast',
      ),
      ofPlain,
    ),
    ranged(
      target(
        'catalogue',
        `catalogue ${label}: first 3 s after a restart, once ready, ≥ 50 % of warm`,
        coldOfWarm.median,
        50,
        '%',
        'atLeast',
      ),
      coldOfWarm,
    ),
    ranged(
      target(
        'catalogue',
        `catalogue ${label}: first 3 s after a restart, once ready, lowest round ≥ 1× the straightforward server`,
        coldOfPlain.min,
        1,
        '×',
        'atLeast',
      ),
      coldOfPlain,
    ),
    target(
      'catalogue',
      `catalogue ${label}: import of ${offers} offers with the service running ≥ 20,000 offers/s`,
      runs.import.rate,
      20_000,
      'offers/s',
      'atLeast',
    ),
  ];
  return { rows, targets };
}

export async function catalogueScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const size = sizes(settings);
  const dir = mkdtempSync(join(tmpdir(), 'shelfmark-bench-catalogue-'));
  const csv = join(dir, 'catalogue.csv');
  await writeCatalogueCsv(csv, size.eans, size.offers);
  const paths = join(dir, 'paths.json');
  writeFileSync(paths, JSON.stringify(catalogueQueries({ eans: size.eans, count: 50_000, seed: 1 })));
  const samples = catalogueQueries({ eans: size.eans, count: size.samples, seed: 2 });
  log(`  ${size.offers} offers over ${size.eans} EANs; 60 % one EAN, 40 % ten, Zipf, 5 % unknown; 10 connections`);
  const engines: Engine[] = settings.postgres ? ['sqlite', 'postgres'] : ['sqlite'];
  const rows: Row[] = [];
  const targets: Target[] = [];
  const raw: Record<string, unknown> = {};
  const notes = [
    `catalogue: ${size.offers} offers over ${size.eans} EANs imported with the CLI; ${size.samples} sampled queries byte-identical on all three parties; warm runs of ${settings.seconds} s after ${size.warmupSeconds} s of warm-up, cold runs the first ${COLD_SECONDS} s after a restart, once the party is ready`,
  ];
  for (const engine of engines) {
    const runs = await runEngine(engine, settings, { csv, paths, samples }, size, log);
    const result = figures(runs, size);
    rows.push(...result.rows);
    targets.push(...result.targets);
    raw[engine] = runs;
  }
  return { rows, targets, notes, raw };
}
