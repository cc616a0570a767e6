/**
 * Scale-out: the same PostgreSQL queue of deliveries (queued through a `--role api` server, as in the
 * delivery scenario) drained by one and by two `--role worker` processes, each with the same in-flight
 * limit, rounds interleaved; the rate is measured at the receiver. On a host with fewer cores than
 * parties (workers, PostgreSQL, the receiver) the ratio is bounded by the shared CPU, not by the
 * queue: the note says how busy the machine was.
 */
import { loadavg } from 'node:os';
import { ratios, spread, startReceiver } from '../lib/measure.js';
import { type Row, type ScenarioResult, type Settings, target } from '../lib/types.js';
import { shelfmarkDelivery } from './delivery.js';

const WORKER_COUNTS = [1, 2] as const;

export async function scaleOutScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  if (!settings.postgres)
    return { rows: [], targets: [], notes: ['scale-out: PostgreSQL unreachable, skipped'], raw: {} };
  const total = settings.deliveries;
  const receiver = await startReceiver();
  const runs: Record<number, number[]> = { 1: [], 2: [] };
  try {
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? WORKER_COUNTS : [...WORKER_COUNTS].reverse();
      for (const workers of order) {
        const rate = await shelfmarkDelivery('postgres', total, receiver, [], workers);
        (runs[workers] as number[]).push(rate);
        log(`  round ${round + 1} ${workers} worker process(es): ${rate} deliveries/s`);
      }
    }
  } finally {
    await receiver.stop();
  }
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
      `scale-out: ${total} deliveries per run on one PostgreSQL, 1 or 2 \`--role worker\` processes with 32 in flight each; load average ${loadavg()[0]?.toFixed(2)} at the end (the workers, PostgreSQL and the receiver share the machine's cores)`,
    ],
    raw: { deliveries: total, runs },
  };
}
