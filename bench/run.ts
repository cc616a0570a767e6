/**
 * `npm run bench`: every benchmark, figures printed and written to bench/results/latest.json.
 * Targets are ratios against a baseline measured in the same run, because these machines are noisy.
 * BENCH_SECONDS (default 10) sets the length of each load run; BENCH_DELIVERIES (default 5000) the
 * number of webhooks in the delivery run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDelivery } from './delivery.js';
import { benchOffers } from './offers.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '10');
const here = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    when: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    secondsPerRun: seconds,
  };
  console.log(`Shelfmark benchmarks (${seconds}s per load run, node ${process.version}, ${cpus().length} CPUs)`);
  console.log('offers:');
  results.offers = await benchOffers(seconds);
  console.log('webhook delivery:');
  results.delivery = await benchDelivery(Number(process.env.BENCH_DELIVERIES ?? '5000'));
  const file = join(here, 'results', 'latest.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`written to ${file}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
