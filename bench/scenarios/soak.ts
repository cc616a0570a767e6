/**
 * Soak: the compiled server on the demo data, `minutes` of mixed traffic from one process
 * (tokens, offer reads with known and made-up EANs, LML reads, subscription writes, bad requests with
 * attacker-chosen keys) plus admin school creates that each deliver a webhook to the receiver. The
 * server's RSS (VmRSS) is sampled every second. Reported: RSS after the first minute (the warm-up; in
 * a quick run, after a third of the run), at the end, and the peak. Targets (reported, not enforced):
 * end ≤ 1.15× the after-warm-up figure; peak ≤ 200 MB.
 *
 * BENCH_SOAK_SECONDS overrides the length (300 full, 8 quick); BENCH_SOAK_ENGINES=sqlite,postgres
 * picks the engines (default: SQLite only; PostgreSQL too when reachable and BENCH_SOAK_ENGINES says so).
 * BENCH_SOAK_SNAPSHOTS=1 writes a V8 heap snapshot after the warm-up and at the end (SIGUSR2, node
 * --heapsnapshot-signal; the snapshot collects garbage first) into bench/out/profiles/soak-*.heapsnapshot,
 * to compare with `tsx bench/lib/heap-diff.ts before after`.
 */
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { epochNow, spread, startReceiver } from '../lib/measure.js';
import { assertRunning, ROOT, rssMiB, sleep, spawnChild } from '../lib/proc.js';
import {
  ADMIN_TOKEN,
  accessToken,
  call,
  createClient,
  type Engine,
  freshDatabase,
  type Server,
  startServer,
} from '../lib/shelfmark.js';
import { type Row, type ScenarioResult, type Settings, type Target, target } from '../lib/types.js';

const DEMO_EANS = ['9789001891442', '9789034523716', '9789001798802', '9789001865122', '9789001774363'];
const SNAPSHOT_DIR = join(ROOT, 'bench', 'out', 'profiles');
const MB = 1_000_000 / 2 ** 20; // the target is in MB (10^6 bytes); samples are MiB

interface SoakRun {
  engine: Engine;
  seconds: number;
  warmupSeconds: number;
  /** RSS in MiB, one sample per second from the start of the traffic. */
  samples: number[];
  afterWarmupMiB: number;
  endMiB: number;
  peakMiB: number;
  delivered: number;
  traffic: { byKind: Record<string, number>; byStatus: Record<string, number> };
}

/** The JS heap and external memory as the server reports them on /metrics (prom-client's default metrics). */
async function heapFigures(url: string): Promise<string> {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
    const mib = (name: string): string => `${Math.round(value(name) / 2 ** 20)} MiB`;
    const spaces = ['new', 'old', 'code', 'large_object']
      .map((space) => {
        const size = new RegExp(`^nodejs_heap_space_size_total_bytes\\{space="${space}"\\} (\\S+)`, 'm').exec(
          text,
        )?.[1];
        return `${space} ${Math.round(Number(size) / 2 ** 20)}`;
      })
      .join(', ');
    return `heap used ${mib('nodejs_heap_size_used_bytes')} of ${mib('nodejs_heap_size_total_bytes')} (${spaces}), external ${mib('nodejs_external_memory_bytes')}`;
  } catch {
    return 'heap figures unavailable';
  }
}

function envSeconds(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? '');
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

async function soakOnce(engine: Engine, seconds: number, log: (line: string) => void): Promise<SoakRun> {
  const warmupSeconds = seconds >= 120 ? 60 : Math.max(1, Math.round(seconds / 3));
  const snapshots = process.env.BENCH_SOAK_SNAPSHOTS === '1';
  const receiver = await startReceiver();
  const db = await freshDatabase(engine);
  let server: Server | undefined;
  try {
    server = await startServer(db, {
      env: { SEED: 'demo', LOG_LEVEL: 'warn' },
      nodeArgs: snapshots ? ['--expose-gc', '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`] : [],
    });
    const api = server;
    const client = await createClient(api, ['offers:read', 'lml:read', 'webhooks:manage']);
    const token = await accessToken(api, client);
    await call(`${api.url}/api/lml/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: { notificationUrl: receiver.hookUrl, event: 'school.created' },
    });
    const traffic = spawnChild('soak-traffic', [
      JSON.stringify({
        url: api.url,
        adminToken: ADMIN_TOKEN,
        basic: client.basic,
        receiverUrl: receiver.url,
        seconds,
        lanes: 8,
        eventsPerSecond: 20,
        eans: DEMO_EANS,
      }),
    ]);
    const samples: number[] = [];
    const started = epochNow();
    const snapshot = async (name: string): Promise<void> => {
      if (!snapshots) return;
      mkdirSync(SNAPSHOT_DIR, { recursive: true });
      const before = new Set(readdirSync(SNAPSHOT_DIR));
      api.child.process.kill('SIGUSR2');
      for (let i = 0; i < 120; i++) {
        await sleep(500);
        const made = readdirSync(SNAPSHOT_DIR).find((file) => file.endsWith('.heapsnapshot') && !before.has(file));
        if (made !== undefined) {
          // The file appears when writing starts: it is complete once its size stops changing.
          const file = join(SNAPSHOT_DIR, made);
          let size = -1;
          while (statSync(file).size !== size) {
            size = statSync(file).size;
            await sleep(1000);
          }
          renameSync(file, join(SNAPSHOT_DIR, `soak-${engine}-${name}.heapsnapshot`));
          log(`  heap snapshot: bench/out/profiles/soak-${engine}-${name}.heapsnapshot`);
          return;
        }
      }
    };
    let snapped = false;
    while (traffic.ended() === undefined) {
      assertRunning(api.child);
      const rss = rssMiB(api.child.pid);
      if (rss !== undefined) samples.push(rss);
      if (samples.length % 30 === 0)
        log(`  ${engine} ${samples.length} s: RSS ${Math.round(rss ?? 0)} MiB, ${await heapFigures(api.url)}`);
      if (!snapped && samples.length === warmupSeconds) {
        snapped = true;
        await snapshot('warm');
      }
      const next = started + samples.length * 1000;
      await sleep(Math.max(0, next - epochNow()));
    }
    const result = await traffic.result<SoakRun['traffic']>(10_000);
    const stats = await receiver.waitFor(Number.MAX_SAFE_INTEGER, 0);
    await snapshot('end');
    const afterWarmupMiB = samples[Math.min(warmupSeconds, samples.length) - 1] ?? Number.NaN;
    const endMiB = samples[samples.length - 1] ?? Number.NaN;
    return {
      engine,
      seconds,
      warmupSeconds,
      samples: samples.map(Math.round),
      afterWarmupMiB,
      endMiB,
      peakMiB: Math.max(...samples),
      delivered: stats.distinct,
      traffic: result,
    };
  } finally {
    await server?.stop();
    await receiver.stop();
    await db.drop();
  }
}

export async function soakScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const seconds = envSeconds('BENCH_SOAK_SECONDS', settings.quick ? 8 : 300);
  const wanted = (process.env.BENCH_SOAK_ENGINES ?? 'sqlite').split(',').map((name) => name.trim());
  const engines = (['sqlite', 'postgres'] as const).filter(
    (engine) => wanted.includes(engine) && (engine === 'sqlite' || settings.postgres),
  );
  const rows: Row[] = [];
  const targets: Target[] = [];
  const notes: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const engine of engines) {
    const run = await soakOnce(engine, seconds, log);
    raw[engine] = run;
    const party = `Shelfmark, ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${seconds} s mixed traffic`;
    const requests = Object.values(run.traffic.byKind).reduce((sum, count) => sum + count, 0);
    const fivexx = Object.entries(run.traffic.byStatus)
      .filter(([status]) => status.startsWith('5'))
      .reduce((sum, [, count]) => sum + count, 0);
    log(
      `  ${engine}: ${requests} requests (${JSON.stringify(run.traffic.byKind)}), ${run.delivered} deliveries; RSS after ${run.warmupSeconds} s ${Math.round(run.afterWarmupMiB)} MiB, end ${Math.round(run.endMiB)} MiB, peak ${Math.round(run.peakMiB)} MiB`,
    );
    const row = (metric: string, value: number, unit: string): void =>
      void rows.push({ scenario: 'soak', party, metric, unit, spread: spread([value]) });
    row(`RSS after ${run.warmupSeconds} s`, run.afterWarmupMiB, 'MiB');
    row('RSS at the end', run.endMiB, 'MiB');
    row('RSS peak', run.peakMiB, 'MiB');
    row('end ÷ after warm-up', run.endMiB / run.afterWarmupMiB, '×');
    row('requests', requests, 'requests');
    row('deliveries', run.delivered, 'deliveries');
    if (fivexx > 0) notes.push(`soak (${engine}): ${fivexx} answers were 5xx`);
    if (settings.quick)
      notes.push(`soak (${engine}): ${seconds} s (quick run); the targets are judged on the 5-minute run only`);
    else {
      const label = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
      targets.push(
        target(
          'soak',
          `soak ${label}: RSS end ≤ 1.15× after 1 min`,
          run.endMiB / run.afterWarmupMiB,
          1.15,
          '×',
          'atMost',
        ),
        target('soak', `soak ${label}: RSS peak ≤ 200 MB`, run.peakMiB / MB, 200, 'MB', 'atMost'),
      );
    }
  }
  return { rows, targets, notes, raw };
}
