/**
 * Commit → first delivery attempt at a steady offered rate (SQLite): the driver creates schools over
 * the admin API at `rate`/s (open loop: calls start on schedule, not after the previous answer), one
 * subscription to school.created; the receiver timestamps the first arrival of each school identifier.
 * The latency runs from the moment the create call was SENT (an upper bound of the commit, which
 * happens inside that call) to the first attempt's arrival.
 */
import { epochNow, percentile, spread, startReceiver } from '../lib/measure.js';
import { sleep } from '../lib/proc.js';
import { admin, freshDatabase, type Server, startServer, subscribeClient } from '../lib/shelfmark.js';
import { type ScenarioResult, type Settings, target } from '../lib/types.js';

/** SQLite by default; BENCH_LATENCY_ENGINE=postgres runs the same against PostgreSQL (not part of a full run). */
const LATENCY_ENGINE = process.env.BENCH_LATENCY_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

export async function latencyScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const receiver = await startReceiver();
  const db = await freshDatabase(LATENCY_ENGINE);
  let server: Server | undefined;
  const p50s: number[] = [];
  const p99s: number[] = [];
  const achieved: number[] = [];
  try {
    server = await startServer(db);
    const api = server;
    await subscribeClient(api, 'school.created', [receiver.hookUrl]);
    const total = Math.round(settings.latencyRate * settings.latencySeconds);
    for (let round = 0; round < settings.rounds; round++) {
      await receiver.reset();
      const sent = new Map<string, number>();
      const calls: Promise<void>[] = [];
      const start = epochNow() + 50;
      for (let i = 0; i < total; i++) {
        const due = start + (i * 1000) / settings.latencyRate;
        const wait = due - epochNow();
        if (wait > 1) await sleep(wait);
        const sentAt = epochNow();
        calls.push(
          admin<{ identifier: string }>(api, '/schools', 'POST', {
            name: `Latency school ${round}-${i}`,
            type: 'PO',
          }).then((school) => {
            sent.set(school.identifier, sentAt);
          }),
        );
      }
      await Promise.all(calls);
      achieved.push(Math.round(total / ((epochNow() - start) / 1000)));
      const stats = await receiver.waitFor(total, 30_000);
      if (stats.distinct < total) throw new Error(`latency: ${stats.distinct} of ${total} delivered`);
      const arrivals = await receiver.arrivals();
      const latencies = [...sent]
        .map(([identifier, at]) => (arrivals[identifier] ?? Number.NaN) - at)
        .sort((a, b) => a - b);
      const p50 = percentile(latencies, 0.5);
      const p99 = percentile(latencies, 0.99);
      p50s.push(p50);
      p99s.push(p99);
      log(
        `  round ${round + 1}: ${total} schools at ${settings.latencyRate}/s offered: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
      );
    }
  } finally {
    await server?.stop();
    await receiver.stop();
    await db.drop();
  }
  const p50 = spread(p50s);
  const p99 = spread(p99s);
  return {
    rows: [
      {
        scenario: 'latency',
        party: `Shelfmark, ${LATENCY_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${settings.latencyRate} events/s`,
        metric: 'commit → first attempt p50',
        unit: 'ms',
        spread: p50,
      },
      {
        scenario: 'latency',
        party: `Shelfmark, ${LATENCY_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${settings.latencyRate} events/s`,
        metric: 'commit → first attempt p99',
        unit: 'ms',
        spread: p99,
      },
      {
        scenario: 'latency',
        party: `Shelfmark, ${LATENCY_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${settings.latencyRate} events/s`,
        metric: 'create calls answered',
        unit: '/s',
        spread: spread(achieved),
      },
    ],
    targets: [
      target('latency', 'commit → first attempt p50 ≤ 20 ms at 200 events/s', p50.median, 20, 'ms', 'atMost'),
      target('latency', 'commit → first attempt p99 ≤ 100 ms at 200 events/s', p99.median, 100, 'ms', 'atMost'),
    ],
    notes: [
      ...(Math.min(...achieved) < settings.latencyRate * 0.9
        ? [
            `latency: the server answered fewer create calls than offered (${achieved.join(', ')}/s of ${settings.latencyRate}/s), so a backlog built up`,
          ]
        : []),
      `latency: ${settings.latencySeconds} s at ${settings.latencyRate} school.created events/s offered per round (open loop), measured from the create call being sent`,
    ],
    raw: { p50Ms: p50s, p99Ms: p99s, achievedRate: achieved },
  };
}
