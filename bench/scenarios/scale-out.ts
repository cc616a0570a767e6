/**
 * Scale-out: the same PostgreSQL queue of deliveries (queued through a `--role api` server, as in the
 * delivery scenario) drained by one and by two `--role worker` processes, each with the same in-flight
 * limit, rounds interleaved; the rate is measured at the receiver. On a host with fewer cores than
 * parties (workers, PostgreSQL, the receiver) the ratio is bounded by the shared CPU, not by the
 * queue: the note says how busy the machine was. So the pair runs twice: against a receiver that
 * answers at once (the target; CPU-bound here) and against one that answers after
 * SLOW_RECEIVER_MS, as receivers across a network do, where a worker is bound by its in-flight limit
 * and the machine has cores to spare: there the ratio shows whether the queue lets workers add up.
 */
import { type CpuShare, cpuAccount } from '../lib/cpu.js';
import { ratios, spread, startReceiver } from '../lib/measure.js';
import { type Row, type ScenarioResult, type Settings, target } from '../lib/types.js';
import { CONCURRENCY, shelfmarkDelivery, singleWindow } from './delivery.js';

const WORKER_COUNTS = [1, 2] as const;
/**
 * Receivers (subscriptions) the deliveries go to. Each may hold 8 leases at once across all workers
 * (the per-subscription cap at 32 in flight), and a worker holds up to 96 (32 sending, 32 claimed
 * ahead, 32 finished and waiting for their commit): 32 subscriptions leave room for two workers, so
 * the cap does not decide the ratio (with the delivery scenario's 10, two workers share 80 leases).
 */
const SUBSCRIPTIONS = 32;
/** The slow receiver's answer time: a worker with CONCURRENCY (32) in flight then sends at most 640 a second. */
const SLOW_RECEIVER_MS = 50;

/** "machine 97 % busy; µs of CPU per delivery: workers 180, PostgreSQL 120, receiver 60". */
function describe(share: CpuShare | undefined, total: number): string {
  if (share === undefined) return 'no CPU reading';
  const perDelivery = Object.entries(share.parties)
    .map(([name, seconds]) => `${name} ${Math.round((seconds * 1e6) / total)}`)
    .join(', ');
  return `machine ${Math.round(share.machineBusy * 100)} % busy; µs of CPU per delivery: ${perDelivery}`;
}

interface PairResult {
  one: number[];
  two: number[];
  cpu: Record<number, CpuShare[]>;
}

/** One and two worker processes draining `total` deliveries each round, interleaved. */
async function drainPair(settings: Settings, answerDelayMs: number, log: (line: string) => void): Promise<PairResult> {
  const total = settings.deliveries;
  const receiver = await startReceiver(answerDelayMs);
  const runs: Record<number, number[]> = { 1: [], 2: [] };
  const cpu: Record<number, CpuShare[]> = { 1: [], 2: [] };
  try {
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? WORKER_COUNTS : [...WORKER_COUNTS].reverse();
      for (const workers of order) {
        let share: CpuShare | undefined;
        const [rate = Number.NaN] = await shelfmarkDelivery(
          'postgres',
          singleWindow(total),
          receiver,
          [],
          workers,
          SUBSCRIPTIONS,
          (pids) => {
            const end = cpuAccount({ workers: pids, receiver: [receiver.child.pid] });
            return () => {
              share = end();
            };
          },
        );
        (runs[workers] as number[]).push(rate);
        if (share !== undefined) (cpu[workers] as CpuShare[]).push(share);
        log(
          `  round ${round + 1}, receiver answering in ${answerDelayMs} ms, ${workers} worker process(es): ${rate} deliveries/s; ${describe(share, total)}`,
        );
      }
    }
  } finally {
    await receiver.stop();
  }
  return { one: runs[1] as number[], two: runs[2] as number[], cpu };
}

function pairRows(pair: PairResult, receiverLabel: string): Row[] {
  const row = (party: string, metric: string, unit: string, values: Row['spread']): Row => ({
    scenario: 'scale-out',
    party: `Shelfmark, PostgreSQL, ${party}${receiverLabel}`,
    metric,
    unit,
    spread: values,
  });
  return [
    row('1 worker', 'deliveries/s', '/s', spread(pair.one)),
    row('2 workers', 'deliveries/s', '/s', spread(pair.two)),
    row('2 workers', '× 1 worker', '×', ratios(pair.two, pair.one)),
  ];
}

export async function scaleOutScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  if (!settings.postgres)
    return { rows: [], targets: [], notes: ['scale-out: PostgreSQL unreachable, skipped'], raw: {} };
  const total = settings.deliveries;
  const instant = await drainPair(settings, 0, log);
  const slow = await drainPair(settings, SLOW_RECEIVER_MS, log);
  const last = (pair: PairResult, workers: number): string => describe((pair.cpu[workers] as CpuShare[]).at(-1), total);
  const ratio = ratios(instant.two, instant.one);
  return {
    rows: [...pairRows(instant, ''), ...pairRows(slow, `, receiver ${SLOW_RECEIVER_MS} ms`)],
    targets: [target('scale-out', '2 PostgreSQL worker processes ≥ 1.6× one', ratio.median, 1.6, '×', 'atLeast')],
    notes: [
      `scale-out: ${total} deliveries per run to ${SUBSCRIPTIONS} subscriptions on one PostgreSQL, 1 or 2 \`--role worker\` processes with ${CONCURRENCY} in flight each; the workers, PostgreSQL and the receiver share the machine's cores. CPU during the last drain, 1 worker: ${last(instant, 1)}; 2 workers: ${last(instant, 2)}. With a receiver answering after ${SLOW_RECEIVER_MS} ms (a worker's ceiling ${CONCURRENCY} / ${SLOW_RECEIVER_MS} ms = ${Math.round((CONCURRENCY * 1000) / SLOW_RECEIVER_MS)}/s), 1 worker: ${last(slow, 1)}; 2 workers: ${last(slow, 2)}`,
    ],
    raw: { deliveries: total, instant, slow, slowReceiverMs: SLOW_RECEIVER_MS },
  };
}
