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
  // Memory of the whole process (load generator included) sampled through every run.
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const startRss = process.memoryUsage().rss;
  console.log('offers:');
  results.offers = await benchOffers(seconds);
  console.log('webhook delivery:');
  results.delivery = await benchDelivery(Number(process.env.BENCH_DELIVERIES ?? '5000'));
  clearInterval(sampler);
  const mib = (bytes: number) => Math.round(bytes / 1048576);
  results.memory = { startRssMiB: mib(startRss), peakRssMiB: mib(peakRss), endRssMiB: mib(process.memoryUsage().rss) };
  console.log(`memory: RSS ${mib(startRss)} MiB at start, ${mib(peakRss)} MiB peak, ${mib(process.memoryUsage().rss)} MiB at the end (one process: services, load generator, receiver)`);
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
