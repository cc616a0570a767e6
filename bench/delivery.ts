/**
 * Webhook delivery throughput and latency against a loopback receiver, next to a bare signed-POST loop
 * (HMAC-SHA256 + undici, same concurrency) measured in the same run.
 *  - throughput: N deliveries queued through the outbox, then one worker drains them;
 *  - latency: one change at a time while the worker idles, from the commit returning to the receiver
 *    seeing the first attempt (p50/p99).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';
import type { Engine } from '../src/db/database.js';
import { ids } from '../src/ids.js';
import { postgresReachable, startInstance } from './support.js';

const CONCURRENCY = 32;
const SUBSCRIPTIONS = 10;

interface Receiver {
  url: string;
  count: number;
  arrivals: Map<string, number>;
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const state = { count: 0, arrivals: new Map<string, number>(), waiters: [] as { count: number; resolve: () => void }[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { identifier?: string };
        if (body.identifier !== undefined && !state.arrivals.has(body.identifier)) state.arrivals.set(body.identifier, now);
      } catch {
        // a malformed body is still counted; the bench only measures transport
      }
      state.count++;
      res.writeHead(204).end();
      state.waiters = state.waiters.filter((waiter) => (state.count >= waiter.count ? (waiter.resolve(), false) : true));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    get count() {
      return state.count;
    },
    arrivals: state.arrivals,
    waitFor: (count, timeoutMs) =>
      new Promise((resolve, reject) => {
        if (state.count >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`receiver saw ${state.count} of ${count}`)), timeoutMs);
        state.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The floor: sign and POST as fast as one process can, no database. */
async function signedPostLoop(total: number): Promise<number> {
  const target = await receiver();
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  let next = 0;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    while (next < total) {
      const index = next++;
      const body = JSON.stringify({ type: 'updated', resource: 'list', identifier: index.toString(16).padStart(32, '0') });
      const signature = createHmac('sha256', secret).update(body).digest('base64');
      const response = await request(target.url, { method: 'POST', dispatcher: agent, body, headers: { 'content-type': 'application/json', 'x-hook-signature': signature } });
      await response.body.dump();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  await target.close();
  return Math.round(total / seconds);
}

async function shelfmark(engine: Engine, total: number, latencySamples: number) {
  const target = await receiver();
  const instance = await startInstance(engine, { webhookAllowPrivate: true, webhookConcurrency: CONCURRENCY, logLevel: 'silent' });
  const { services } = instance.app;
  try {
    const client = await services.clients.create({ name: 'bench' });
    const now = Date.now();
    const subscriptionRow = (event: string, i: number) => ({
      id: ids.subscription(),
      client_ref: client.id,
      notification_url: `${target.url}?s=${event}${i}`,
      event,
      event_as_given: event,
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    });
    await instance.db.kysely.insertInto('subscriptions').values(Array.from({ length: SUBSCRIPTIONS }, (_, i) => subscriptionRow('list.updated', i))).execute();
    await instance.db.kysely.insertInto('subscriptions').values([subscriptionRow('school.modified', 0)]).execute();

    // Throughput: queue `total` deliveries (events × subscriptions) through the outbox, then drain.
    for (let e = 0; e < total / SUBSCRIPTIONS; e++) {
      await services.outbox.transaction(async (_trx, emit) => emit({ name: 'list.updated', type: 'updated', resource: 'list', identifier: ids.resourceIdentifier() }));
    }
    const started = performance.now();
    const worker = services.startWorker();
    await target.waitFor(total, 300_000);
    const throughput = Math.round(total / ((performance.now() - started) / 1000));

    // Latency: one change at a time while the worker idles.
    const commits = new Map<string, number>();
    for (let i = 0; i < latencySamples; i++) {
      const identifier = ids.resourceIdentifier();
      await services.outbox.transaction(async (_trx, emit) => emit({ name: 'school.modified', type: 'modified', resource: 'school', identifier }));
      commits.set(identifier, performance.now());
      await target.waitFor(total + i + 1, 10_000);
    }
    await worker.stop();
    const latencies = [...commits].map(([identifier, committed]) => (target.arrivals.get(identifier) ?? Number.NaN) - committed).sort((a, b) => a - b);
    const pick = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN).toFixed(2));
    const attempts = await instance.db.kysely.selectFrom('delivery_attempts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { deliveries: total, deliveriesPerSecond: throughput, attemptsRecorded: Number(attempts.n), commitToFirstAttemptMs: { p50: pick(0.5), p99: pick(0.99), samples: latencies.length } };
  } finally {
    await instance.close();
    await target.close();
  }
}

export async function benchDelivery(total: number): Promise<Record<string, unknown>> {
  const baseline = await signedPostLoop(total);
  console.log(`  bare signed-POST loop baseline: ${baseline}/s (${total} requests, concurrency ${CONCURRENCY})`);
  const out: Record<string, unknown> = { baseline: { requestsPerSecond: baseline, requests: total, concurrency: CONCURRENCY } };
  const engines: Engine[] = process.env.BENCH_ENGINES ? (process.env.BENCH_ENGINES.split(',') as Engine[]) : (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const engine of engines) {
    const result = await shelfmark(engine, total, 200);
    const ratio = result.deliveriesPerSecond / baseline;
    console.log(
      `  delivery (${engine}): ${result.deliveriesPerSecond}/s = ${(ratio * 100).toFixed(1)}% of baseline; commit → first attempt p50 ${result.commitToFirstAttemptMs.p50} ms, p99 ${result.commitToFirstAttemptMs.p99} ms`,
    );
    out[engine] = { ...result, ratioToBaseline: Number(ratio.toFixed(3)) };
  }
  return out;
}
