/**
 * The service under test: the compiled server (`node dist/main/server.js`, as `npm start` runs it) in a
 * process of its own, on a fresh SQLite file or a fresh PostgreSQL schema that is dropped afterwards.
 * Data is set up through its admin and public APIs, as an operator and a client would.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Child, freePort, onInterrupt, ROOT, sleep, spawnNode } from './proc.js';

export type Engine = 'sqlite' | 'postgres';
export const POSTGRES_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function pgQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  await pgQuery(`drop schema if exists "${schema}" cascade`);
}

/** A fresh database: a SQLite file in a temporary folder, or a PostgreSQL schema (via search_path in the URL). */
export interface Database {
  engine: Engine;
  url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(engine: Engine): Promise<Database> {
  const tag = randomBytes(4).toString('hex');
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'shelfmark-bench-'));
    return {
      engine,
      url: `sqlite:${join(dir, 'bench.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${tag}`;
  await pgQuery(`create schema "${schema}"`);
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const drop = (): Promise<void> => dropSchema(schema);
  const forget = onInterrupt(drop);
  return {
    engine,
    url: url.toString(),
    drop: async () => {
      forget();
      await drop();
    },
  };
}

export interface Server {
  child: Child;
  url: string;
  port: number;
  stop(): Promise<number | string>;
}

export interface ServerOptions {
  role?: 'all' | 'api' | 'worker';
  env?: Record<string, string>;
  nodeArgs?: string[];
}

const SERVER_ENTRIES = [join('dist', 'main', 'server.js'), join('dist', 'server.js'), join('dist', 'src', 'server.js')];

export function serverBuilt(): boolean {
  return SERVER_ENTRIES.some((entry) => existsSync(join(ROOT, entry)));
}

/** True when the compiled server reads CLUSTER_WORKERS and forks with node:cluster (the multi-core mode). */
export function clusterSupported(): boolean {
  const dist = join(ROOT, 'dist');
  if (!existsSync(dist)) return false;
  const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
  const read = (file: string): string => readFileSync(join(dist, file), 'utf8');
  return (
    files.some((file) => read(file).includes('CLUSTER_WORKERS')) &&
    files.some((file) => /from ['"](node:)?cluster['"]/.test(read(file)))
  );
}

export function serverEntry(): string {
  return SERVER_ENTRIES.find((entry) => existsSync(join(ROOT, entry))) ?? join('dist', 'main', 'server.js');
}

export async function startServer(db: Database, options: ServerOptions = {}): Promise<Server> {
  const role = options.role ?? 'all';
  const port = await freePort();
  const child = spawnNode(`shelfmark (${db.engine}, ${role})`, serverEntry(), ['--role', role], {
    nodeArgs: options.nodeArgs ?? [],
    env: {
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      SEED: 'none',
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // One client drives the whole load: the per-client rate limit still runs on every request (its
      // cost is measured) but never refuses.
      RATE_LIMIT_RATE: '1000000',
      RATE_LIMIT_BURST: '1000000',
      ...options.env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  if (role === 'worker') {
    await child.line('Shelfmark worker', 30_000);
  } else {
    await child.line('Shelfmark listening', 30_000);
    // As a proxy routing by readiness would: ready once the offers read model has read the catalogue
    // (it answers warming for at most WARM_UP_MAX_MS).
    await waitReady(url, 75_000);
  }
  return { child, url, port, stop: () => child.stop('SIGTERM', 15_000) };
}

async function waitReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not yet listening
    }
    await sleep(50);
  }
  throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
}

/** A JSON call with a bounded time; throws with the body on an unexpected status. */
export async function call<T>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; expect?: number[] } = {},
): Promise<T> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  if (!(init.expect ?? [200, 201]).includes(response.status))
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${text.slice(0, 500)}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export const admin = <T>(server: { url: string }, path: string, method = 'GET', body?: unknown): Promise<T> =>
  call<T>(`${server.url}/api/admin/v1${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body });

export interface BenchClient {
  clientId: string;
  clientSecret: string;
  basic: string;
}

export async function createClient(server: { url: string }, scopes: string[]): Promise<BenchClient> {
  const created = await admin<{ clientId: string; clientSecret: string }>(server, '/clients', 'POST', {
    name: 'bench',
    scopes,
  });
  return {
    ...created,
    basic: `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`,
  };
}

export async function accessToken(server: { url: string }, client: BenchClient): Promise<string> {
  const token = await call<{ access_token: string }>(`${server.url}/api/auth/token`, {
    headers: { authorization: client.basic },
  });
  return token.access_token;
}

/**
 * A client with webhooks:manage, subscribed to `event` once per notification URL, as an integrator
 * subscribes: over the public API with its own token.
 */
export async function subscribeClient(server: { url: string }, event: string, urls: readonly string[]): Promise<void> {
  const token = await accessToken(server, await createClient(server, ['webhooks:manage']));
  for (const notificationUrl of urls)
    await call(`${server.url}/api/lml/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: { notificationUrl, event },
    });
}

/** Runs `task` over `items` with at most `concurrency` in flight. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
