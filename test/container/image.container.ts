/**
 * The container image as operators run it (`npm run test:container`; the set-up it needs is in
 * docs/operating/production.md#testing-the-image). It builds the image from the Dockerfile, then runs:
 * a SQLite container with its volume at /data (the README's curl examples, a restart that keeps the
 * data), and against a real PostgreSQL a one-shot `migrate`, an API container and a worker container
 * that delivers webhooks to a receiver on the host, SIGTERM to the worker in the middle of a batch of
 * deliveries (none lost); then compose.yaml itself under podman-compose (PostgreSQL, migrate, two API
 * nodes and a worker behind Caddy: the README's curl examples through the proxy, an API node restarted
 * without a failed request). It prints the image's size, the build's duration and what SIGTERM did.
 *
 * Containers use the host's network (loopback ports chosen free), so the receiver on the host is
 * reachable as 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true for that container only).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { readmeScript } from '../support/readme.js';
import { until } from '../support/until.js';

const root = join(import.meta.dirname, '..', '..');
const cache = process.env.SHELFMARK_CONTAINER_CACHE ?? '/var/tmp/shelfmark-container';
const containersConf = process.env.CONTAINERS_CONF ?? join(cache, 'containers.conf');
const context = process.env.CONTAINER_BUILD_CONTEXT ?? root;
const image = process.env.SHELFMARK_TEST_IMAGE ?? 'localhost/shelfmark:container-test';
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const database = 'shelfmark_container';
const prefix = `shelfmark-test-${process.pid}`;
const ADMIN_TOKEN = 'container-test-admin-token-0123456789';
const DEMO = 'smc_demo:sms_demo_secret_do_not_use_in_production';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking the event loop (the receiver below answers meanwhile). */
function run(command: string, args: readonly string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, CONTAINERS_CONF: containersConf, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function podman(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await run('podman', args, timeoutMs === undefined ? {} : { timeoutMs });
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} → ${result.code}\n${result.stderr}`);
  return result.stdout.trim();
}

/** Starts a container on the host's network; returns its name. */
async function start(name: string, env: Record<string, string>, command: string[], volume?: string): Promise<string> {
  const full = `${prefix}-${name}`;
  const args = ['run', '-d', '--name', full, '--network=host'];
  for (const [key, value] of Object.entries(env)) args.push('-e', `${key}=${value}`);
  if (volume !== undefined) args.push('-v', `${volume}:/data`);
  await podman([...args, image, ...command]);
  return full;
}

async function ready(port: number, container: string): Promise<void> {
  await until(
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok === true,
    `${container} to answer /readyz`,
    60_000,
    250,
  ).catch(async (error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : error}\n${await logs(container)}`);
  });
}

const logs = async (container: string): Promise<string> =>
  (await run('podman', ['logs', container])).stdout + (await run('podman', ['logs', container])).stderr;

/** `podman stop` (SIGTERM, then SIGKILL after `grace` seconds): how long it took and the exit code. */
async function stop(container: string, grace = 30): Promise<{ seconds: number; exitCode: number }> {
  const started = performance.now();
  await podman(['stop', '-t', String(grace), container], (grace + 30) * 1000);
  const seconds = (performance.now() - started) / 1000;
  const exitCode = Number(await podman(['inspect', '--format', '{{.State.ExitCode}}', container]));
  return { seconds, exitCode };
}

async function api<T>(origin: string, path: string, init: { token: string; body?: unknown; method?: string }) {
  const response = await fetch(`${origin}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${init.token}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'POST'} ${path} → ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

async function clientToken(origin: string, clientId: string, secret: string): Promise<Response> {
  return fetch(`${origin}/api/auth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
}

/** Valid EAN-13 codes, distinct per `n`. */
function ean(n: number): string {
  const body = `978${String(n).padStart(9, '0')}`;
  const sum = [...body].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** A webhook receiver on the host: answers 200 after `delayMs`, records every request. */
class Receiver {
  readonly received: { id: string; body: string; headers: IncomingMessage['headers'] }[] = [];
  inFlight = 0;
  delayMs = 0;
  private server: Server | undefined;
  port = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      this.inFlight++;
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        setTimeout(() => {
          this.received.push({ id: String(request.headers['webhook-id']), body, headers: request.headers });
          this.inFlight--;
          response.writeHead(200).end();
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
  }

  distinct(): number {
    return new Set(this.received.map((request) => request.id)).size;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }
}

/** The README's "Try it" commands run against `origin`, verbatim otherwise; one parsed answer per command. */
async function readmeExamples(origin: string): Promise<Record<string, unknown>[]> {
  const shell = readmeScript(origin);
  const result = await run('bash', ['-euo', 'pipefail', '-c', shell], { timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`the README's examples failed against ${origin}:\n${result.stderr}`);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What every run of the README's examples answers, whichever way the service runs. */
function expectReadmeAnswers(responses: Record<string, unknown>[]): void {
  expect(responses[0]).toMatchObject({ token_type: 'Bearer' });
  expect(responses[2]).toHaveLength(6);
  expect(responses.find((response) => response.code === 'unresolvable-host')).toMatchObject({ status: 422 });
  expect(responses.at(-1)).toMatchObject({ list: { name: 'vwo 4' }, summary: { items: 4, currency: 'EUR' } });
  expect(responses).toHaveLength(11);
}

const figures: Record<string, unknown> = {};

describe('the container image', () => {
  const containers: string[] = [];
  const volumes: string[] = [];
  const receiver = new Receiver();
  let admin: pg.Client;

  beforeAll(async () => {
    const base = await run('bash', [join(root, 'test/container/base-image.sh')], { timeoutMs: 20 * 60_000 });
    if (base.code !== 0) throw new Error(`assembling the base image failed:\n${base.stderr}`);
    const nodeImage = base.stdout.trim().split('\n').at(-1) ?? '';
    const started = performance.now();
    // `docker` format: the OCI format has no HEALTHCHECK.
    const build = await run(
      'podman',
      ['build', '--format', 'docker', '--network=host', '--build-arg', `NODE_IMAGE=${nodeImage}`, '-t', image, context],
      { timeoutMs: 40 * 60_000 },
    );
    if (build.code !== 0) throw new Error(`podman build failed:\n${build.stdout.slice(-4000)}\n${build.stderr}`);
    figures.buildSeconds = Math.round((performance.now() - started) / 1000);
    figures.nodeImage = nodeImage;
    figures.imageBytes = Number(await podman(['image', 'inspect', '--format', '{{.Size}}', image]));
    figures.baseImageBytes = Number(await podman(['image', 'inspect', '--format', '{{.Size}}', nodeImage]));

    admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
    await receiver.start();
  }, 60 * 60_000);

  afterAll(async () => {
    for (const container of containers) await run('podman', ['rm', '-f', '-t', '0', container]);
    for (const volume of volumes) await run('podman', ['volume', 'rm', '-f', volume]);
    await receiver.stop();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
    console.log(`container test figures: ${JSON.stringify(figures, null, 2)}`);
  }, 120_000);

  it('carries the compiled service and its production dependencies only, and runs as an unprivileged user', async () => {
    const listing = await podman([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      image,
      '-c',
      'id -u; ls /app /app/node_modules',
    ]);
    const [uid, ...names] = listing.split('\n');
    expect(uid).toBe('1000');
    expect(names).toEqual(expect.arrayContaining(['bin', 'dist', 'node_modules', 'package.json']));
    for (const absent of ['src', 'test', 'bench', 'docs', 'typescript', 'vitest', 'esbuild', '@biomejs'])
      expect(names).not.toContain(absent);
    expect(names).toContain('better-sqlite3');
    const [inspected] = JSON.parse(await podman(['image', 'inspect', image])) as {
      Healthcheck?: { Test: string[] };
      Config: { User: string; Volumes: Record<string, unknown>; Env: string[] };
    }[];
    if (inspected === undefined) throw new Error(`no image ${image}`);
    const config = { ...inspected.Config, Healthcheck: inspected.Healthcheck };
    expect(config.User).toBe('node');
    expect(Object.keys(config.Volumes)).toEqual(['/data']);
    expect(config.Healthcheck?.Test.join(' ')).toContain('/readyz');
    expect(config.Env).toEqual(expect.arrayContaining(['HOST=0.0.0.0', 'DATABASE_URL=sqlite:/data/shelfmark.sqlite']));
  });

  describe('on SQLite, with its volume at /data', () => {
    let port: number;
    let origin: string;
    let container: string;
    const volume = `${prefix}-data`;

    beforeAll(async () => {
      volumes.push(volume);
      port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      container = await start('sqlite', { PORT: String(port), DEMO_CLIENT_PUBLIC: 'true' }, [], volume);
      containers.push(container);
      await ready(port, container);
    }, 120_000);

    it("answers the README's curl examples", async () => {
      expectReadmeAnswers(await readmeExamples(origin));
    }, 90_000);

    it('passes its own health check', async () => {
      const health = await run('podman', ['healthcheck', 'run', container]);
      expect(health.code, health.stdout + health.stderr).toBe(0);
    });

    it('keeps its data across a restart (SIGTERM, then start again)', async () => {
      const offer = await api<{ id: number }>(origin, '/api/admin/v1/offers', {
        token: await adminTokenFrom(container),
        body: { ean: ean(4242), price: 12.5, condition: 'good', status: 'published' },
      });
      // The CLI runs beside the server, in the same container and on the same database.
      expect(await podman(['exec', container, 'shelfmark', 'clients', 'list', '--json'])).toContain('"smc_demo"');
      const stopped = await stop(container);
      expect(stopped.exitCode).toBe(0);
      figures.sqliteStop = stopped;
      await podman(['start', container]);
      await ready(port, container);
      const token = (await (await clientToken(origin, 'smc_demo', DEMO.split(':')[1] ?? '')).json()) as {
        access_token: string;
      };
      const same = await api<{ id: number; ean: string }>(origin, `/api/v1/offers/${offer.id}`, {
        token: token.access_token,
      });
      expect(same).toMatchObject({ id: offer.id, ean: ean(4242) });
      const startups = (await logs(container)).match(/Demo data seeded/g) ?? [];
      expect(startups).toHaveLength(1);
      const owner = await podman(['exec', container, 'stat', '-c', '%U', '/data/shelfmark.sqlite']);
      expect(owner).toBe('node');
    }, 120_000);
  });

  describe('on PostgreSQL: migrate, an API container and a worker container', () => {
    let port: number;
    let origin: string;
    let apiContainer: string;
    let worker: string;
    const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/${database}`);
    const common = (): Record<string, string> => ({
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      SEED: 'none',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      LOG_REQUESTS: 'errors',
    });
    let token = '';
    let webhookSecret = '';
    /** A one-off command of the image (migrate, seed) against the shared database. */
    const oneOff = (command: string) =>
      run('podman', ['run', '--rm', '--network=host', '-e', `DATABASE_URL=${databaseUrl}`, image, command]);

    beforeAll(async () => {
      const migrate = await oneOff('migrate');
      expect(migrate.code, migrate.stderr).toBe(0);
      expect(migrate.stderr).toContain('database migrated (postgres)');
      port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      apiContainer = await start('api', { ...common(), PORT: String(port) }, ['serve', '--role', 'api']);
      containers.push(apiContainer);
      worker = await start('worker-1', common(), ['serve', '--role', 'worker']);
      containers.push(worker);
      await ready(port, apiContainer);
    }, 180_000);

    it("refuses the demo client's published secret beyond loopback", async () => {
      // Seeded by hand here (SEED=none), as `shelfmark seed` does for an operator who wants the demo data.
      const seeded = await oneOff('seed');
      expect(seeded.code, seeded.stderr).toBe(0);
      const refused = await clientToken(origin, 'smc_demo', DEMO.split(':')[1] ?? '');
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain('DEMO_CLIENT_PUBLIC');
    }, 60_000);

    it('delivers a signed webhook to a receiver on the host', async () => {
      const client = await api<{ clientId: string; clientSecret: string; webhookSecret: string }>(
        origin,
        '/api/admin/v1/clients',
        { token: ADMIN_TOKEN, body: { name: 'Container receiver' } },
      );
      webhookSecret = client.webhookSecret;
      const issued = (await (await clientToken(origin, client.clientId, client.clientSecret)).json()) as {
        access_token: string;
      };
      token = issued.access_token;
      await api(origin, '/api/lml/v1/subscriptions', {
        token,
        body: { notificationUrl: `http://127.0.0.1:${receiver.port}/hooks`, event: 'offer-published' },
      });
      const offer = await api<{ identifier: string }>(origin, '/api/admin/v1/offers', {
        token: ADMIN_TOKEN,
        body: { ean: ean(1), price: 5, condition: 'good', status: 'published' },
      });
      await until(() => receiver.received.length >= 1, 'the first webhook', 30_000, 100);
      const [first] = receiver.received;
      expect(JSON.parse(first?.body ?? '{}')).toEqual({
        type: 'published',
        resource: 'offer',
        identifier: offer.identifier,
      });
      const headers = Object.fromEntries(
        Object.entries(first?.headers ?? {}).map(([key, value]) => [key, String(value)]),
      );
      expect(() => new Webhook(webhookSecret).verify(first?.body ?? '', headers)).not.toThrow();
    }, 60_000);

    it('loses no delivery when the worker gets SIGTERM in the middle of a batch', async () => {
      // The batch is queued while no worker runs, so that the worker signalled below has requests in
      // flight, deliveries claimed ahead and more waiting, all at once.
      figures.idleWorkerStop = await stop(worker);
      const before = receiver.received.length;
      const count = 120;
      receiver.delayMs = 1000;
      for (let i = 0; i < count; i += 8)
        await Promise.all(
          Array.from({ length: Math.min(8, count - i) }, (_, j) =>
            api(origin, '/api/admin/v1/offers', {
              token: ADMIN_TOKEN,
              body: { ean: ean(100 + i + j), price: 5 + j, condition: 'good', status: 'published' },
            }),
          ),
        );
      const signalled = await start('worker-2', common(), ['serve', '--role', 'worker']);
      containers.push(signalled);
      await until(
        () => receiver.received.length - before >= 20 && receiver.inFlight > 0,
        'the first 20 of the batch, and more on their way',
        60_000,
        5,
      );
      const atSignal = { delivered: receiver.received.length - before, inFlight: receiver.inFlight };
      const stopped = await stop(signalled);
      const afterStop = receiver.received.length - before;
      const leasesLeft = await pgCount(
        databaseUrl,
        "SELECT count(*) FROM deliveries WHERE status = 'pending' AND lease_until > $1",
        [Date.now()],
      );
      const recorded = await pgCount(databaseUrl, "SELECT count(*) FROM deliveries WHERE status = 'succeeded'", []);
      figures.sigterm = {
        ...stopped,
        deliveries: count,
        ...atSignal,
        deliveredByExit: afterStop,
        answeredAfterSignal: afterStop - atSignal.delivered,
        recordedByExit: recorded - 1,
        leasesLeft,
      };
      expect(stopped.exitCode).toBe(0);
      expect(stopped.seconds).toBeLessThan(25);
      // Every request in flight at SIGTERM was answered, and every answer recorded, before the process
      // ended; what it had claimed but not sent was handed back (no lease left to expire).
      expect(afterStop).toBeGreaterThanOrEqual(atSignal.delivered + atSignal.inFlight);
      expect(afterStop - atSignal.delivered).toBeGreaterThan(0);
      expect(recorded).toBe(receiver.received.length);
      expect(leasesLeft).toBe(0);
      expect(afterStop).toBeLessThan(count);

      receiver.delayMs = 0;
      const successor = await start('worker-3', common(), ['serve', '--role', 'worker']);
      containers.push(successor);
      await until(
        () => receiver.distinct() >= count + 1,
        () => `${receiver.distinct()} of ${count + 1}`,
        90_000,
        100,
      );
      await until(
        async () =>
          (await pgCount(databaseUrl, "SELECT count(*) FROM deliveries WHERE status = 'succeeded'", [])) === count + 1,
        'every delivery recorded as succeeded',
        30_000,
        200,
      );
      const duplicates = receiver.received.length - receiver.distinct();
      figures.sigterm = { ...(figures.sigterm as object), duplicates, lost: count + 1 - receiver.distinct() };
      expect(receiver.distinct()).toBe(count + 1);
      expect(duplicates).toBe(0);
    }, 240_000);
  });

  describe('compose.yaml under podman-compose', () => {
    // The project: compose.yaml and the Caddyfile as shipped, .env made from .env.example; the images
    // of PostgreSQL and Caddy are the stand-ins assembled from Debian's packages (stand-in-images.sh).
    const project = `${prefix}-compose`;
    const dir = mkdtempSync(join(tmpdir(), 'shelfmark-compose-'));
    let origin: string;
    const compose = (args: string[], timeoutMs = 300_000) =>
      run('podman-compose', ['-p', project, ...args], { timeoutMs, env: { PWD: dir } });

    beforeAll(async () => {
      const standIns = await run('bash', [join(root, 'test/container/stand-in-images.sh')], { timeoutMs: 20 * 60_000 });
      if (standIns.code !== 0) throw new Error(`assembling the stand-in images failed:\n${standIns.stderr}`);
      const port = await freePort();
      origin = `http://localhost:${port}`;
      cpSync(join(root, 'compose.yaml'), join(dir, 'compose.yaml'));
      mkdirSync(join(dir, 'deploy'));
      cpSync(join(root, 'deploy/Caddyfile'), join(dir, 'deploy/Caddyfile'));
      const env = readFileSync(join(root, '.env.example'), 'utf8')
        .replace(/^ADMIN_TOKEN=$/m, `ADMIN_TOKEN=${ADMIN_TOKEN}`)
        .replace(/^POSTGRES_PASSWORD=$/m, 'POSTGRES_PASSWORD=compose-test-password');
      writeFileSync(
        join(dir, '.env'),
        `${env}\nSHELFMARK_IMAGE=${image}\nSHELFMARK_PORT=${port}\n${standIns.stdout.trim()}\n`,
      );
      const up = await run(
        'podman-compose',
        ['-p', project, '-f', join(dir, 'compose.yaml'), 'up', '-d', '--no-build'],
        {
          timeoutMs: 300_000,
        },
      );
      if (up.code !== 0)
        throw new Error(`podman-compose up failed:\n${up.stdout.slice(-3000)}\n${up.stderr.slice(-3000)}`);
      await until(
        async () => (await fetch(`${origin}/readyz`).catch(() => undefined))?.ok === true,
        'the proxy to answer /readyz',
        180_000,
        500,
      );
    }, 30 * 60_000);

    afterAll(async () => {
      await compose(['-f', join(dir, 'compose.yaml'), 'down', '-v']);
      await run('podman', ['network', 'rm', '-f', `${project}_default`]);
      rmSync(dir, { recursive: true, force: true });
    }, 300_000);

    it("answers the README's curl examples through the proxy, from two API nodes on PostgreSQL", async () => {
      expectReadmeAnswers(await readmeExamples(origin));
      // The proxy's X-Forwarded-* headers are believed (TRUSTED_PROXIES): the issuer is the published origin.
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
      };
      expect(metadata.issuer).toBe(origin);
      const migrate = await run('podman', ['inspect', '--format', '{{.State.ExitCode}}', `${project}_migrate_1`]);
      expect(migrate.stdout.trim()).toBe('0');
    }, 120_000);

    it('keeps answering while one API node restarts', async () => {
      const answers: number[] = [];
      let polling = true;
      const poll = (async () => {
        while (polling) {
          answers.push((await fetch(`${origin}/readyz`).catch(() => undefined))?.status ?? 0);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      await podman(['stop', '-t', '30', `${project}_api-1_1`]);
      await podman(['start', `${project}_api-1_1`]);
      // Until the restarted node is ready again, and the proxy has had a health check to see it.
      await until(
        async () => (await run('podman', ['healthcheck', 'run', `${project}_api-1_1`])).code === 0,
        'the restarted API node to be ready',
        60_000,
        250,
      );
      await new Promise((resolve) => setTimeout(resolve, 6000));
      polling = false;
      await poll;
      figures.rollingRestart = { requests: answers.length, failed: answers.filter((status) => status !== 200).length };
      expect(answers.length).toBeGreaterThan(50);
      expect(answers.filter((status) => status !== 200)).toEqual([]);
    }, 120_000);
  });
});

async function pgCount(url: string, sql: string, values: unknown[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(sql, values);
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

/** The admin token a first start generated and printed (no ADMIN_TOKEN given). */
async function adminTokenFrom(container: string): Promise<string> {
  const token = /Admin token [^:]+: (sma_[0-9A-Za-z]+)/.exec(await logs(container))?.[1];
  if (token === undefined) throw new Error(`no generated admin token in the logs of ${container}`);
  return token;
}
