/**
 * Peer for webhook delivery: graphile-worker on the same PostgreSQL (a schema of its own), each job
 * doing the same signed POST as the bare loop. Enqueues `total` jobs with one `add_jobs` call per
 * 1,000, prints READY, then runs them with `concurrency` jobs at once (one POST each, so at most
 * `concurrency` POSTs in flight). Configured for throughput as its performance page advises
 * (https://worker.graphile.org/docs/performance): `concurrentJobs` with a pool one larger, and, on
 * versions that have them (0.17+), a local queue of 500 and completions and failures batched with no
 * delay. On SIGTERM it stops and drops its schema. Argument: JSON {databaseUrl, schema, url, total,
 * concurrency}.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { run, runMigrations } from 'graphile-worker';
import pg from 'pg';
import { Agent, request } from 'undici';
import { signedHeaders } from '../../src/delivery/signer.js';
import { webhookPayload } from '../../src/events/catalogue.js';

interface Args {
  databaseUrl: string;
  schema: string;
  url: string;
  total: number;
  concurrency: number;
}
interface HookJob {
  url: string;
  body: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const version = (createRequire(import.meta.url)('graphile-worker/package.json') as { version: string }).version;
const secrets = { current: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, previous: undefined };
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
const options = {
  connectionString: args.databaseUrl,
  schema: args.schema,
  concurrency: args.concurrency,
  maxPoolSize: args.concurrency + 1,
  pollInterval: 500,
  noHandleSignals: true,
  logger: undefined,
  preset: {
    worker: {
      concurrentJobs: args.concurrency,
      maxPoolSize: args.concurrency + 1,
      // The batching options of 0.17 and later; older versions ignore unknown preset keys.
      ...{ localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 },
    },
  },
};

async function sql(text: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: args.databaseUrl });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

const dropSchema = (): Promise<void> => sql(`drop schema if exists "${args.schema}" cascade`);

async function post(job: HookJob, id: string): Promise<void> {
  const headers = signedHeaders({
    deliveryId: id,
    eventName: 'school.created',
    body: job.body,
    now: Date.now(),
    secrets,
  });
  const response = await request(job.url, { method: 'POST', dispatcher: agent, body: job.body, headers });
  await response.body.dump();
  // A failed POST fails the job, so graphile-worker retries it, as a delivery queue must.
  if (response.statusCode >= 300) throw new Error(`receiver answered ${response.statusCode}`);
}

await runMigrations(options);
const bodies = Array.from({ length: args.total }, () =>
  webhookPayload({ type: 'created', resource: 'school', identifier: randomUUID().replaceAll('-', '') }),
);
for (let i = 0; i < bodies.length; i += 1000) {
  await sql(
    `select count(*) from "${args.schema}".add_jobs(array(
       select row('webhook', json_build_object('url', $1::text, 'body', b), null, null, null, null, null, null)::"${args.schema}".job_spec
       from unnest($2::text[]) as b))`,
    [args.url, bodies.slice(i, i + 1000)],
  );
}
process.stdout.write(`READY ${JSON.stringify({ queued: args.total, version })}\n`);

const runner = await run({
  ...options,
  taskList: {
    webhook: async (payload, helpers) => post(payload as HookJob, `job_${helpers.job.id}`),
  },
});

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await runner.stop().catch(() => undefined);
  await agent.close().catch(() => undefined);
  await dropSchema().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
