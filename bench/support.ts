/** Shared pieces of the benchmarks: autocannon runs, valid EANs, a Shelfmark instance on a chosen engine. */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { buildApp, type App } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { testConfig, type Config } from '../src/config.js';
import { connectDatabase, type Db, type Engine } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrations.js';

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export async function load(url: string, headers: Record<string, string>, seconds: number, connections = 50): Promise<LoadResult> {
  const result = await autocannon({ url, headers, connections, duration: seconds, pipelining: 1 });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** An ISBN-13 (EAN-13) with a correct check digit, from a 9-digit serial. */
export function isbn(serial: number): string {
  const body = `978${String(serial).padStart(9, '0')}`;
  const sum = [...body].reduce((total, digit, index) => total + Number(digit) * (index % 2 === 0 ? 1 : 3), 0);
  return body + String((10 - (sum % 10)) % 10);
}

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface Instance {
  app: App;
  db: Db;
  url: string;
  close(): Promise<void>;
}

/** One client drives the whole load: the rate limit still runs on every request (its cost is measured) but never refuses. */
const BENCH_LIMITS: Partial<Config> = { rateLimitRate: 1_000_000, rateLimitBurst: 1_000_000 };

/** A migrated Shelfmark on a fresh SQLite file or PostgreSQL schema, listening on loopback. */
export async function startInstance(engine: Engine, overrides: Partial<Config> = {}): Promise<Instance> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const db =
    engine === 'sqlite'
      ? await connectDatabase(`sqlite:${tmpdir()}/shelfmark-bench-${schema}.sqlite`)
      : await connectDatabase(POSTGRES_URL, { schema, poolSize: 20 });
  await migrateToLatest(db);
  const app = await buildApp({ config: testConfig({ adminToken: 'bench-admin-token-0123456789', ...BENCH_LIMITS, ...overrides }), db, clock: systemClock }, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    app,
    db,
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      await app.close();
      await db.close();
      if (engine === 'postgres') {
        const admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
        await admin.query(`drop schema if exists "${schema}" cascade`);
        await admin.end();
      }
    },
  };
}
