/**
 * Peer for webhook delivery: pg-boss on the same PostgreSQL (a schema of its own), each job doing the
 * same signed POST as the bare loop. Enqueues `total` jobs in multi-row inserts, prints READY, then
 * works them with `workers` pollers fetching `batchSize` jobs each, with at most `concurrency` POSTs in
 * flight in the process. pg-boss fetches at most every 0.5 s per worker when not notified, so
 * workers × batchSize / 0.5 s must stay well above the rate measured. On SIGTERM it stops and drops its schema. Argument: JSON {databaseUrl, schema, url, total,
 * batchSize, workers, concurrency}.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { Agent, request } from 'undici';
import { signedHeaders } from '../../src/delivery/signer.js';
import { webhookPayload } from '../../src/events/catalogue.js';

interface Args {
  databaseUrl: string;
  schema: string;
  url: string;
  total: number;
  batchSize: number;
  workers: number;
  concurrency: number;
}
interface HookJob {
  url: string;
  body: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const secrets = { current: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, previous: undefined };
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
const boss = new PgBoss({
  connectionString: args.databaseUrl,
  schema: args.schema,
  max: 10,
  supervise: false,
  schedule: false,
});
boss.on('error', (error: Error) => process.stderr.write(`pg-boss: ${error.message}\n`));
const QUEUE = 'webhooks';

async function dropSchema(): Promise<void> {
  const client = new pg.Client({ connectionString: args.databaseUrl });
  await client.connect();
  await client.query(`drop schema if exists "${args.schema}" cascade`);
  await client.end();
}

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => undefined);
  await agent.close().catch(() => undefined);
  await dropSchema().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

await boss.start();
await boss.createQueue(QUEUE);
const jobs = Array.from({ length: args.total }, () => ({
  name: QUEUE,
  data: {
    url: args.url,
    body: webhookPayload({ type: 'created', resource: 'school', identifier: randomUUID().replaceAll('-', '') }),
  } satisfies HookJob,
}));
for (let i = 0; i < jobs.length; i += 1000) await boss.insert(jobs.slice(i, i + 1000));
process.stdout.write(`READY ${JSON.stringify({ queued: args.total })}\n`);

async function post(job: { id: string; data: HookJob }): Promise<void> {
  const headers = signedHeaders({
    deliveryId: job.id,
    eventName: 'school.created',
    body: job.data.body,
    now: Date.now(),
    secrets,
  });
  const response = await request(job.data.url, { method: 'POST', dispatcher: agent, body: job.data.body, headers });
  await response.body.dump();
  // A failed POST fails the job, so pg-boss retries it, as a delivery queue must.
  if (response.statusCode >= 300) throw new Error(`receiver answered ${response.statusCode}`);
}

// One limit on POSTs in flight for the whole process, as the bare loop and Shelfmark's worker have.
let inFlight = 0;
const queued: (() => void)[] = [];
async function limited(task: () => Promise<void>): Promise<void> {
  if (inFlight >= args.concurrency) await new Promise<void>((resolve) => queued.push(resolve));
  inFlight++;
  try {
    await task();
  } finally {
    inFlight--;
    queued.shift()?.();
  }
}

for (let w = 0; w < args.workers; w++) {
  await boss.work<HookJob>(QUEUE, { batchSize: args.batchSize, pollingIntervalSeconds: 0.5 }, async (batch) => {
    await Promise.all(batch.map((job) => limited(() => post(job))));
  });
}
