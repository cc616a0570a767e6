/**
 * GET /api/v1/offers with 10 EANs (~40 published offers in the answer) with a valid bearer token, on
 * SQLite and PostgreSQL, interleaved round by round with a bare Fastify hello-world and a bare Fastify
 * serving the same bytes from memory; RSS of the SQLite server process sampled through its loads; and,
 * when the build supports CLUSTER_WORKERS, the same load on one process per core.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRows } from '../lib/load-rows.js';
import { type LoadResult, load, ratios, sampleRss, spread } from '../lib/measure.js';
import { assertRunning, type Child, childPids, freePort, sleep, spawnChild } from '../lib/proc.js';
import {
  accessToken,
  admin,
  clusterSupported,
  createClient,
  type Database,
  type Engine,
  freshDatabase,
  pool,
  type Server,
  startServer,
} from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, target } from '../lib/types.js';

/** An ISBN-13 (EAN-13) with a correct check digit, from a serial. */
export function isbn(serial: number): string {
  const body = `978${String(serial).padStart(9, '0')}`;
  const sum = [...body].reduce((total, digit, index) => total + Number(digit) * (index % 2 === 0 ? 1 : 3), 0);
  return body + String((10 - (sum % 10)) % 10);
}

const TARGET_EANS = Array.from({ length: 10 }, (_, i) => isbn(200000 + i * 37));
const OTHER_EANS = Array.from({ length: 40 }, (_, i) => isbn(300000 + i * 11));

/** 10 EANs × (4 published + 1 sold) that the call asks for, and 40 other EANs × 3 offers beside them. */
export async function seedOffers(server: Server): Promise<void> {
  const offers: { ean: string; price: number; condition: string; status: string; remarks?: string }[] = [];
  for (const [e, ean] of TARGET_EANS.entries()) {
    for (let o = 0; o < 5; o++) {
      offers.push({
        ean,
        price: 5 + ((e * 7 + o * 13) % 30) + 0.5,
        condition: ['excellent', 'good', 'acceptable'][o % 3] ?? 'good',
        status: o === 4 ? 'sold' : 'published',
        ...(o === 0 ? { remarks: 'Some highlighting' } : {}),
      });
    }
  }
  for (const ean of OTHER_EANS)
    for (let o = 0; o < 3; o++) offers.push({ ean, price: 9.95 + o, condition: 'good', status: 'published' });
  await pool(offers, 8, async (offer) => {
    await admin(server, '/offers', 'POST', offer);
  });
}

export const offersPath = `/api/v1/offers?eans=${TARGET_EANS.join(',')}`;

interface Party {
  name: string;
  url: string;
  headers: Record<string, string>;
  pids: () => number[];
  results: LoadResult[];
  rss: { peakMiB: number; lastMiB: number }[];
  sampleRss: boolean;
  /** The processes that must outlive every load run of this party. */
  children: Child[];
  stop(): Promise<void>;
}

async function shelfmarkParty(
  name: string,
  engine: Engine,
  env: Record<string, string>,
  sample: boolean,
): Promise<{ party: Party; body: string }> {
  const db: Database = await freshDatabase(engine);
  let server: Server | undefined;
  try {
    server = await startServer(db, { env });
    if (env.CLUSTER_WORKERS !== undefined) {
      const pid = server.child.pid;
      const deadline = Date.now() + 10_000;
      while (childPids(pid).length === 0 && Date.now() < deadline) await sleep(100);
      if (childPids(pid).length === 0)
        throw new Error(`CLUSTER_WORKERS=${env.CLUSTER_WORKERS}: the server started no worker processes`);
    }
    await seedOffers(server);
    const client = await createClient(server, ['offers:read']);
    const token = await accessToken(server, client);
    const headers = { authorization: `Bearer ${token}` };
    const response = await fetch(`${server.url}${offersPath}`, { headers });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`offers probe answered ${response.status}: ${body.slice(0, 300)}`);
    const started = server;
    return {
      body,
      party: {
        name,
        url: `${server.url}${offersPath}`,
        headers,
        pids: () => [started.child.pid, ...childPids(started.child.pid)],
        results: [],
        rss: [],
        sampleRss: sample,
        children: [started.child],
        stop: async () => {
          await started.stop();
          await db.drop();
        },
      },
    };
  } catch (error) {
    await server?.stop();
    await db.drop();
    throw error;
  }
}

async function helloParty(name: string, bodyFile?: string): Promise<Party> {
  const port = await freePort();
  const child: Child = spawnChild('hello', bodyFile === undefined ? [String(port)] : [String(port), bodyFile]);
  await child.line('READY', 20_000);
  return {
    name,
    url: `http://127.0.0.1:${port}${bodyFile === undefined ? '/' : offersPath}`,
    headers: {},
    pids: () => [child.pid],
    results: [],
    rss: [],
    sampleRss: false,
    children: [child],
    stop: async () => {
      await child.stop();
    },
  };
}

export async function offersScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const parties: Party[] = [];
  const notes: string[] = [];
  try {
    const sqlite = await shelfmarkParty('Shelfmark, SQLite', 'sqlite', {}, true);
    const bodyFile = join(mkdtempSync(join(tmpdir(), 'shelfmark-bench-body-')), 'offers.json');
    writeFileSync(bodyFile, sqlite.body);
    const offerCount = (JSON.parse(sqlite.body) as unknown[]).length;
    log(`  offers answer: ${offerCount} offers, ${sqlite.body.length} bytes`);
    notes.push(
      `offers: 10 EANs, ${offerCount} offers in the answer (${sqlite.body.length} bytes), 50 connections, ${settings.seconds} s per run`,
    );
    parties.push(await helloParty('Fastify hello-world'));
    parties.push(sqlite.party);
    parties.push(await helloParty('bare Fastify, same body', bodyFile));
    if (settings.postgres) parties.push((await shelfmarkParty('Shelfmark, PostgreSQL', 'postgres', {}, false)).party);
    const workers = cpus().length;
    if (clusterSupported()) {
      for (const engine of settings.postgres ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
        const name = `Shelfmark, ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, CLUSTER_WORKERS=${workers}`;
        try {
          parties.push((await shelfmarkParty(name, engine, { CLUSTER_WORKERS: String(workers) }, false)).party);
        } catch (error) {
          const message = `${name}: not supported by this build (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`;
          log(`  ${message}`);
          notes.push(`offers: ${message}`);
        }
      }
    } else {
      log('  one process per core (CLUSTER_WORKERS): not supported by this build');
      notes.push('offers with one process per core (CLUSTER_WORKERS): not supported by this build');
    }
    if (settings.warmupSeconds > 0)
      for (const party of parties)
        await load({ url: party.url, headers: party.headers, seconds: settings.warmupSeconds });
    for (let round = 0; round < settings.rounds; round++) {
      // A B A B: every round runs every party once, the order reversed on odd rounds so no party always goes first.
      const order = round % 2 === 0 ? parties : [...parties].reverse();
      for (const party of order) {
        const sampler = party.sampleRss ? sampleRss(party.pids) : undefined;
        const result = await load({ url: party.url, headers: party.headers, seconds: settings.seconds });
        if (sampler !== undefined) party.rss.push(sampler.stop());
        party.children.forEach(assertRunning);
        party.results.push(result);
        log(
          `  round ${round + 1} ${party.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms${result.non2xx + result.errors > 0 ? `, ${result.non2xx} non-2xx ${JSON.stringify(result.statusCodes)}, ${result.errors} errors` : ''}`,
        );
      }
    }
  } finally {
    for (const party of parties) await party.stop().catch(() => undefined);
  }
  const byName = (prefix: string): Party | undefined => parties.find((party) => party.name === prefix);
  const rps = (party: Party): number[] => party.results.map((result) => result.requestsPerSecond);
  const rows: Row[] = [];
  for (const party of parties) {
    const { rows: partyRows, note } = loadRows('offers', party.name, party.results);
    rows.push(...partyRows);
    if (note !== undefined) notes.push(note);
  }
  const hello = byName('Fastify hello-world');
  const sameBody = byName('bare Fastify, same body');
  const targets = [];
  for (const party of parties.filter((candidate) => candidate.name.startsWith('Shelfmark'))) {
    if (hello !== undefined) {
      const ratio = ratios(rps(party), rps(hello));
      rows.push({ scenario: 'offers', party: party.name, metric: 'of hello-world', unit: '%', spread: scale(ratio) });
      if (party.name === 'Shelfmark, SQLite')
        targets.push(target('offers', 'offers SQLite ≥ 60 % of hello-world', ratio.median * 100, 60, '%', 'atLeast'));
      if (party.name === 'Shelfmark, PostgreSQL')
        targets.push(
          target('offers', 'offers PostgreSQL ≥ 50 % of hello-world', ratio.median * 100, 50, '%', 'atLeast'),
        );
    }
    if (sameBody !== undefined) {
      const ratio = ratios(rps(party), rps(sameBody));
      rows.push({ scenario: 'offers', party: party.name, metric: 'of same-body', unit: '%', spread: scale(ratio) });
      if (party.name === 'Shelfmark, SQLite')
        targets.push(
          target('offers', 'offers SQLite ≥ 70 % of the same-body baseline', ratio.median * 100, 70, '%', 'atLeast'),
        );
    }
  }
  const sqliteParty = byName('Shelfmark, SQLite');
  if (sqliteParty !== undefined) {
    targets.push(
      target(
        'offers',
        'offers SQLite p99 ≤ 10 ms at 50 connections',
        spread(sqliteParty.results.map((result) => result.p99Ms)).median,
        10,
        'ms',
        'atMost',
      ),
    );
    const peak = spread(sqliteParty.rss.map((sample) => sample.peakMiB));
    const end = spread(sqliteParty.rss.map((sample) => sample.lastMiB));
    rows.push({
      scenario: 'memory',
      party: 'Shelfmark, SQLite, under the offers load',
      metric: 'RSS peak',
      unit: 'MiB',
      spread: peak,
    });
    rows.push({
      scenario: 'memory',
      party: 'Shelfmark, SQLite, under the offers load',
      metric: 'RSS at the end',
      unit: 'MiB',
      spread: end,
    });
    targets.push(
      target(
        'memory',
        'RSS of the service under the offers load ≤ 150 MB',
        Math.max(...sqliteParty.rss.map((sample) => sample.peakMiB)) * 1.048576,
        150,
        'MB',
        'atMost',
      ),
    );
  }
  return {
    rows,
    targets,
    notes,
    raw: Object.fromEntries(
      parties.map((party) => [
        party.name,
        { url: party.url.replace(/127\.0\.0\.1:\d+/, 'HOST'), runs: party.results, rss: party.rss },
      ]),
    ),
  };
}

const scale = (ratio: ReturnType<typeof spread>): ReturnType<typeof spread> => ({
  median: ratio.median * 100,
  min: ratio.min * 100,
  max: ratio.max * 100,
  values: ratio.values.map((value) => value * 100),
});
