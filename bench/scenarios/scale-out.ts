/**
 * Scale-out: the same PostgreSQL queue of deliveries (queued through a `--role api` server, as in the
 * delivery scenario) drained by one and by two `--role worker` processes, each with the same in-flight
 * limit, rounds interleaved; the rate is measured at the receiver. On a host with fewer cores than
 * parties (workers, PostgreSQL, the receiver) the ratio is bounded by the shared CPU, not by the
 * queue: the note says how busy the machine was.
 */
import { type CpuShare, cpuAccount } from '../lib/cpu.js';
import { ratios, spread, startReceiver } from '../lib/measure.js';
import { type Row, type ScenarioResult, type Settings, target } from '../lib/types.js';
import { shelfmarkDelivery, singleWindow } from './delivery.js';

const WORKER_COUNTS = [1, 2] as const;
/**
 * Receivers (subscriptions) the deliveries go to. Each may hold 8 leases at once across all workers
 * (the per-subscription cap at 32 in flight), and a worker holds up to 96 (32 sending, 32 claimed
 * ahead, 32 finished and waiting for their commit): 32 subscriptions leave room for two workers, so
 * the cap does not decide the ratio (with the delivery scenario's 10, two workers share 80 leases).
 */
const SUBSCRIPTIONS = 32;

/** "machine 97 % busy; µs of CPU per delivery: workers 180, PostgreSQL 120, receiver 60". */
function describe(share: CpuShare | undefined, total: number): string {
  if (share === undefined) return 'no CPU reading';
  const perDelivery = Object.entries(share.parties)
    .map(([name, seconds]) => `${name} ${Math.round((seconds * 1e6) / total)}`)
    .join(', ');
  return `machine ${Math.round(share.machineBusy * 100)} % busy; µs of CPU per delivery: ${perDelivery}`;
}

export async function scaleOutScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  if (!settings.postgres)
    return { rows: [], targets: [], notes: ['scale-out: PostgreSQL unreachable, skipped'], raw: {} };
  const total = settings.deliveries;
  const receiver = await startReceiver();
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
        log(`  round ${round + 1} ${workers} worker process(es): ${rate} deliveries/s; ${describe(share, total)}`);
      }
    }
  } finally {
    await receiver.stop();
  }
  const last = (workers: number): string => describe((cpu[workers] as CpuShare[]).at(-1), total);
  const one = runs[1] as number[];
  const two = runs[2] as number[];
  const ratio = ratios(two, one);
  const rows: Row[] = [
    {
      scenario: 'scale-out',
      party: 'Shelfmark, PostgreSQL, 1 worker',
      metric: 'deliveries/s',
      unit: '/s',
      spread: spread(one),
    },
    {
      scenario: 'scale-out',
      party: 'Shelfmark, PostgreSQL, 2 workers',
      metric: 'deliveries/s',
      unit: '/s',
      spread: spread(two),
    },
    {
      scenario: 'scale-out',
      party: 'Shelfmark, PostgreSQL, 2 workers',
      metric: '× 1 worker',
      unit: '×',
      spread: ratio,
    },
  ];
  return {
    rows,
    targets: [target('scale-out', '2 PostgreSQL worker processes ≥ 1.6× one', ratio.median, 1.6, '×', 'atLeast')],
    notes: [
      `scale-out: ${total} deliveries per run to ${SUBSCRIPTIONS} subscriptions on one PostgreSQL, 1 or 2 \`--role worker\` processes with 32 in flight each; the workers, PostgreSQL and the receiver share the machine's cores. CPU during the last drain, 1 worker: ${last(1)}; 2 workers: ${last(2)}`,
    ],
    raw: { deliveries: total, runs, cpu },
  };
}
