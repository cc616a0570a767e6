/**
 * The event feed, on SQLite and PostgreSQL:
 * - a page of 100 events (GET /api/lml/v1/events?limit=100), 50 connections, interleaved round by round
 *   with a bare Fastify serving the same bytes from memory. Target: ≥ 50 % of that baseline's rate.
 * - long-poll: 1,000 readers waiting on one node (each its own connection, one client), then one event
 *   written: the server's RSS growth with them waiting (target ≤ 30 MB) and the time from the write's
 *   answer until the last of the 1,000 has its answer (target ≤ 1 s).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadResult, load, ratios, spread } from '../lib/measure.js';
import { freePort, rssMiB, sleep, spawnChild } from '../lib/proc.js';
import {
  accessToken,
  admin,
  createClient,
  type Engine,
  freshDatabase,
  pool,
  type Server,
  startServer,
} from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, type Target, target } from '../lib/types.js';

export const FEED_PAGE_PATH = '/api/lml/v1/events?limit=100';
const WAITERS = 1000;

interface LongPoll {
  rssGrowthMiB: number;
  reachAllMs: number;
  withEvent: number;
}

/** 120 events (schools created) in the feed, so a page of 100 is full. */
export async function seedFeed(server: Server): Promise<void> {
  await pool(
    Array.from({ length: 120 }, (_, i) => i),
    8,
    async (i) => {
      await admin(server, '/schools', 'POST', { name: `Feed school ${i}`, type: 'VO' });
    },
  );
}

/** 1,000 readers waiting at the head, then one event: RSS growth and the time until all have it. */
async function longPoll(server: Server, token: string): Promise<LongPoll> {
  const head = (await (
    await fetch(`${server.url}${FEED_PAGE_PATH.replace('100', '1000')}`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { next: string };
  const before = rssMiB(server.child.pid) ?? 0;
  const readers = spawnChild('feed-waiters', [
    JSON.stringify({ url: server.url, token, after: head.next, count: WAITERS }),
  ]);
  try {
    await readers.line('WAITING', 30_000);
    // Until the server holds them all (connections accepted, requests parsed, waiters registered).
    await sleep(3000);
    let peak = 0;
    for (let i = 0; i < 10; i++) {
      peak = Math.max(peak, rssMiB(server.child.pid) ?? 0);
      await sleep(100);
    }
    await admin(server, '/schools', 'POST', { name: 'Long-poll school', type: 'VO' });
    const committed = performance.timeOrigin + performance.now();
    const result = await readers.result<{ withEvent: number; lastArrival: number }>(40_000);
    return {
      rssGrowthMiB: Math.round(peak - before),
      reachAllMs: Math.max(0, Math.round(result.lastArrival - committed)),
      withEvent: result.withEvent,
    };
  } finally {
    await readers.stop('SIGKILL', 5000);
  }
}

async function engineRun(
  engine: Engine,
  settings: Settings,
  log: (line: string) => void,
): Promise<{ rows: Row[]; targets: Target[]; raw: Record<string, unknown> }> {
  const db = await freshDatabase(engine);
  let server: Server | undefined;
  let baseline: ReturnType<typeof spawnChild> | undefined;
  try {
    server = await startServer(db, { env: { EVENTS_MAX_WAITING_PER_CLIENT: String(WAITERS) } });
    const started = server;
    await seedFeed(started);
    const token = await accessToken(server, await createClient(server, ['lml:read']));
    const headers = { authorization: `Bearer ${token}` };
    const probe = await fetch(`${server.url}${FEED_PAGE_PATH}`, { headers });
    const body = await probe.text();
    if (probe.status !== 200) throw new Error(`feed probe answered ${probe.status}: ${body.slice(0, 300)}`);
    const bodyFile = join(mkdtempSync(join(tmpdir(), 'shelfmark-bench-feed-')), 'page.json');
    writeFileSync(bodyFile, body);
    const port = await freePort();
    baseline = spawnChild('hello', [String(port), bodyFile]);
    await baseline.line('READY', 20_000);
    const feedUrl = `${server.url}${FEED_PAGE_PATH}`;
    const baseUrl = `http://127.0.0.1:${port}${FEED_PAGE_PATH}`;
    log(`  ${engine}: a page of ${(JSON.parse(body) as { data: unknown[] }).data.length} events, ${body.length} bytes`);
    if (settings.warmupSeconds > 0) {
      await load({ url: feedUrl, headers, seconds: settings.warmupSeconds });
      await load({ url: baseUrl, seconds: settings.warmupSeconds });
    }
    const feed: LoadResult[] = [];
    const same: LoadResult[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      const a = await load({ url: feedUrl, headers, seconds: settings.seconds });
      const b = await load({ url: baseUrl, seconds: settings.seconds });
      if (a.non2xx > 0) throw new Error(`feed: non-2xx answers ${JSON.stringify(a.statusCodes)}`);
      feed.push(a);
      same.push(b);
      log(
        `  ${engine} round ${round + 1}: feed page ${a.requestsPerSecond} req/s (p99 ${a.p99Ms} ms); same bytes ${b.requestsPerSecond} req/s`,
      );
    }
    const waited = await longPoll(server, token);
    log(
      `  ${engine} long-poll: ${WAITERS} waiting, RSS +${waited.rssGrowthMiB} MiB; one event reached ${waited.withEvent} of them within ${waited.reachAllMs} ms`,
    );
    const rps = (runs: LoadResult[]) => runs.map((run) => run.requestsPerSecond);
    const ratio = ratios(rps(feed), rps(same));
    const percent = spread(ratio.values.map((value) => value * 100));
    const label = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    return {
      rows: [
        {
          scenario: 'feed',
          party: `feed page of 100, ${label}`,
          metric: 'throughput',
          unit: 'req/s',
          spread: spread(rps(feed)),
        },
        {
          scenario: 'feed',
          party: `same bytes, bare Fastify (${label} round)`,
          metric: 'throughput',
          unit: 'req/s',
          spread: spread(rps(same)),
        },
        {
          scenario: 'feed',
          party: `feed page ÷ same bytes, ${label}`,
          metric: 'throughput ratio',
          unit: '%',
          spread: percent,
        },
        {
          scenario: 'feed',
          party: `${WAITERS} long-polls, ${label}`,
          metric: 'RSS growth',
          unit: 'MiB',
          spread: spread([waited.rssGrowthMiB]),
        },
        {
          scenario: 'feed',
          party: `${WAITERS} long-polls, ${label}`,
          metric: 'one event reaches all',
          unit: 'ms',
          spread: spread([waited.reachAllMs]),
        },
      ],
      targets: [
        target('feed', `feed page of 100 vs same-body baseline, ${label}`, percent.median, 50, '%', 'atLeast'),
        target('feed', `${WAITERS} long-polls: RSS growth, ${label}`, waited.rssGrowthMiB, 30, 'MiB', 'atMost'),
        target(
          'feed',
          `${WAITERS} long-polls: one event reaches all, ${label}`,
          waited.withEvent === WAITERS ? waited.reachAllMs : Number.NaN,
          1000,
          'ms',
          'atMost',
        ),
      ],
      raw: { feed, same, longPoll: waited },
    };
  } finally {
    await baseline?.stop();
    await server?.stop();
    await db.drop();
  }
}

export async function feedScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const rows: Row[] = [];
  const targets: Target[] = [];
  const raw: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const engine of ['sqlite', 'postgres'] as const) {
    if (engine === 'postgres' && !settings.postgres) {
      notes.push('feed: PostgreSQL unreachable, its half skipped');
      continue;
    }
    const result = await engineRun(engine, settings, log);
    rows.push(...result.rows);
    targets.push(...result.targets);
    raw[engine] = result.raw;
  }
  return { rows, targets, notes, raw };
}
