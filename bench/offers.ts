/**
 * GET /api/v1/offers with 10 EANs against a bare Fastify hello-world, measured in the same process run,
 * 50 connections, on SQLite and (when reachable) PostgreSQL. Reported as a ratio to the baseline.
 */
import Fastify from 'fastify';
import type { Engine } from '../src/db/database.js';
import { isbn, load, type LoadResult, postgresReachable, startInstance } from './support.js';

const EAN_COUNT = 400;
const OFFERS_PER_EAN = 5;

/** A bare Fastify answering {hello:"world"}, or a fixed body (the same bytes the offers call returns). */
async function bareFastify(seconds: number, body?: string): Promise<LoadResult> {
  const app = Fastify({ logger: false });
  app.get('/', async (_request, reply) => (body === undefined ? { hello: 'world' } : reply.type('application/json').send(body)));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  try {
    return await load(`http://127.0.0.1:${address.port}/`, {}, seconds);
  } finally {
    await app.close();
  }
}

async function offers(engine: Engine, seconds: number): Promise<LoadResult & { eans: number; offersInDb: number; offersPerResponse: number; responseBody: string }> {
  const instance = await startInstance(engine);
  try {
    const { services } = instance.app;
    const client = await services.clients.create({ name: 'bench' });
    const now = Date.now();
    const rows = [];
    for (let e = 0; e < EAN_COUNT; e++) {
      for (let o = 0; o < OFFERS_PER_EAN; o++) {
        rows.push({ ean: isbn(100000 + e), price_cents: 500 + ((e * 7 + o * 13) % 3000), condition: ['excellent', 'good', 'acceptable'][o % 3] ?? 'good', remarks: o === 0 ? 'Some highlighting' : null, status: o === 4 ? 'sold' : 'published', created_at: now, updated_at: now });
      }
    }
    for (let i = 0; i < rows.length; i += 500) await instance.db.kysely.insertInto('offers').values(rows.slice(i, i + 500)).execute();
    const row = await services.clients.authenticate(client.clientId, client.clientSecret);
    if (row === undefined) throw new Error('bench client did not authenticate');
    const token = await services.tokens.issue(row);
    const eans = Array.from({ length: 10 }, (_, i) => isbn(100000 + i * 37)).join(',');
    const url = `${instance.url}/api/v1/offers?eans=${eans}`;
    const probe = await fetch(url, { headers: { authorization: `Bearer ${token.access_token}` } });
    if (probe.status !== 200) throw new Error(`offers probe answered ${probe.status}: ${await probe.text()}`);
    const responseBody = await probe.text();
    const result = await load(url, { authorization: `Bearer ${token.access_token}` }, seconds);
    return { ...result, eans: 10, offersInDb: rows.length, offersPerResponse: (JSON.parse(responseBody) as unknown[]).length, responseBody };
  } finally {
    await instance.close();
  }
}

export async function benchOffers(seconds: number): Promise<Record<string, unknown>> {
  const baseline = await bareFastify(seconds);
  console.log(`  hello-world baseline: ${baseline.requestsPerSecond} req/s (p50 ${baseline.p50Ms} ms, p99 ${baseline.p99Ms} ms)`);
  const out: Record<string, unknown> = { baseline };
  const engines: Engine[] = (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const engine of engines) {
    const { responseBody, ...result } = await offers(engine, seconds);
    const ratio = result.requestsPerSecond / baseline.requestsPerSecond;
    console.log(`  offers (10 EANs, ${engine}): ${result.requestsPerSecond} req/s (p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}) = ${(ratio * 100).toFixed(1)}% of hello-world`);
    out[engine] = { ...result, bytesPerResponse: responseBody.length, ratioToBaseline: Number(ratio.toFixed(3)) };
    if (out.sameBodyBaseline === undefined) {
      // The offers answer is ~40 offers; a bare Fastify sending those same bytes shows what the body alone costs.
      const sameBody = await bareFastify(seconds, responseBody);
      console.log(`  bare Fastify sending the same ${responseBody.length}-byte body: ${sameBody.requestsPerSecond} req/s`);
      out.sameBodyBaseline = { ...sameBody, bytesPerResponse: responseBody.length };
    }
    const sameBody = out.sameBodyBaseline as LoadResult;
    out[engine] = { ...(out[engine] as object), ratioToSameBodyBaseline: Number((result.requestsPerSecond / sameBody.requestsPerSecond).toFixed(3)) };
    console.log(`    = ${((result.requestsPerSecond / sameBody.requestsPerSecond) * 100).toFixed(1)}% of the same-body baseline`);
  }
  return out;
}
