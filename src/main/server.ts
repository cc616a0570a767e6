/**
 * The process entry: read config, connect, migrate, seed, listen, run the delivery worker, and shut
 * down cleanly on SIGTERM/SIGINT (in-flight requests finish, leases are released by expiry).
 */
import cluster from 'node:cluster';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino, { type BaseLogger } from 'pino';
import { SYSTEM } from '../audit/initiator.js';
import { systemClock } from '../clock.js';
import { type Config, ConfigError, loadConfig, type ProcessRole } from '../config.js';
import { connectDatabase, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { answerConnect } from '../limits/http-limits.js';
import { applyHeapGrowth } from '../observability/heap.js';
import { logDestination, loggerOptions } from '../observability/logging.js';
import { Metrics } from '../observability/metrics.js';
import { DEMO_CLIENT, seedDemo } from '../seed/demo.js';
import { buildApp } from './app.js';
import { createServices, createWorkerServices } from './services.js';

function roleFromArgs(args: readonly string[], fallback: ProcessRole): ProcessRole {
  const index = args.indexOf('--role');
  const value = index >= 0 ? args[index + 1] : args.find((arg) => arg.startsWith('--role='))?.slice('--role='.length);
  if (value === undefined) return fallback;
  if (value === 'api' || value === 'worker' || value === 'all') return value;
  console.error(`--role: expected api, worker or all, got "${value}"`);
  process.exit(2);
}

export async function main(args: readonly string[] = process.argv.slice(2)): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  applyHeapGrowth(config.heapGrowthPercent);
  const role = roleFromArgs(args, config.role);
  const child = cluster.isWorker;
  const db = await connectDatabase(config.databaseUrl, { sqliteCacheMib: config.sqliteCacheMib });
  if (!child) await migrateToLatest(db);
  if (role === 'worker') return runWorker(config, db);

  // One process per core (CLUSTER_WORKERS): the primary migrates, seeds and runs the delivery worker;
  // its children serve HTTP on the shared port (node:cluster hands connections out round-robin).
  const clustered = config.clusterWorkers > 1;

  const deps = { config, db, clock: systemClock, metrics: new Metrics({ defaultMetrics: true }) };
  const services = await createServices(deps);
  const app = await buildApp({ ...deps, services });
  answerConnect(app.server);
  // The demo client's published secret opens no token where others can reach this server (auth/demo-secret.ts).
  services.tokenEndpoint.demoSecret.bound(config.host, DEMO_CLIENT, config.demoClientPublic);
  // Said once, by the process that runs the delivery worker or alone (not by every cluster child).
  if (!child) warnIfPrivate(config, app.log);
  if (!child && config.demoClientPublic)
    app.log.warn(
      `DEMO_CLIENT_PUBLIC=true: the demo client's published secret (${DEMO_CLIENT.clientId}) opens tokens on ${config.host}; anyone who can reach this server can use it (development only)`,
    );

  const seed = config.seed === 'demo' && !child ? await seedDemo(services, SYSTEM) : undefined;

  let address = `http://${config.host}:${config.port}`;
  if (child || !clustered) address = await app.listen({ port: config.port, host: config.host });
  const worker = child || role === 'api' ? undefined : services.startWorker({ logger: app.log });
  // Retention runs where the delivery worker does (one node at a time: retention/lock.ts).
  const pruner = worker === undefined ? undefined : services.startPruner({ logger: app.log });
  // The primary makes sure a signing key exists before the children start, so they do not each create one.
  if (clustered && !child) await services.signingKeys.active();
  const children = clustered && !child ? forkChildren(config.clusterWorkers) : undefined;

  const shown = address.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost');
  if (child) {
    app.log.info({ address: shown }, 'cluster child listening');
  } else {
    const lines = [
      `Shelfmark listening on ${shown} (role ${role}, ${db.engine}${clustered ? `, ${config.clusterWorkers} HTTP processes` : ''})`,
    ];
    if (services.generatedAdminToken !== undefined) {
      lines.push(
        `Admin token (generated on first start, shown once; set ADMIN_TOKEN to choose your own): ${services.generatedAdminToken}`,
      );
    }
    if (seed?.seeded === true) {
      lines.push(
        `Demo data seeded: ${seed.offers} offers, ${seed.schools} schools, ${seed.lists} lists.`,
        // The webhook secret too: a receiver of the demo client's webhooks verifies them with it.
        `Demo client: clientId=${DEMO_CLIENT.clientId} clientSecret=${DEMO_CLIENT.clientSecret} webhookSecret=${DEMO_CLIENT.webhookSecret}`,
        services.tokenEndpoint.demoSecret.refusing
          ? `The demo client's published secret is refused on ${config.host} (not loopback): set DEMO_CLIENT_PUBLIC=true to accept it, or create a client of your own.`
          : `Try: curl -u ${DEMO_CLIENT.clientId}:${DEMO_CLIENT.clientSecret} ${shown}/api/auth/token`,
      );
    }
    lines.push(`API reference: ${shown}/docs   Dashboard: ${shown}/dashboard`);
    console.log(lines.join('\n'));
  }

  stopOnSignals(app.log, async () => {
    children?.stop();
    await pruner?.stop();
    await worker?.stop();
    await app.close();
    await children?.exited;
    await db.close();
  });
}

/**
 * `--role worker`: the delivery worker and retention's pruner, nothing else. Only the worker's graph
 * is built (no HTTP app, no admin token, no demo data: the API nodes see to those).
 */
function runWorker(config: Config, db: Db): void {
  const metrics = new Metrics();
  const log = pino(loggerOptions(config.logLevel), config.logLevel === 'silent' ? undefined : logDestination(metrics));
  warnIfPrivate(config, log);
  const services = createWorkerServices({ config, db, clock: systemClock, metrics });
  // Nothing else runs in this process, so on a SQLite file its queue may take a thread of its own.
  const worker = services.startWorker({ logger: log }, { workerOnly: true });
  const pruner = services.startPruner({ logger: log });
  console.log(
    `Shelfmark worker (role worker, ${db.engine}${worker.queueOnThread ? ', delivery queue on its own thread' : ''})`,
  );
  stopOnSignals(log, async () => {
    await pruner.stop();
    await worker.stop();
    await db.close();
  });
}

function warnIfPrivate(config: Config, log: Pick<BaseLogger, 'warn'>): void {
  if (config.webhookAllowPrivate)
    log.warn(
      'WEBHOOK_ALLOW_PRIVATE=true: the SSRF guard is off, webhooks may be sent to loopback and private addresses (development only)',
    );
}

/** On SIGTERM/SIGINT: close (in-flight work finishes, leases are released by expiry), then exit; 20 s at most. */
function stopOnSignals(log: Pick<BaseLogger, 'info'>, close: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * Forks the HTTP children and replaces one that dies (after a pause, so a child that cannot start
 * does not spin). stop() asks every child to shut down; `exited` settles when all have.
 */
function forkChildren(count: number): { stop(): void; exited: Promise<void> } {
  let stopping = false;
  cluster.setupPrimary({ args: ['--role', 'api'] });
  const fork = (): void => {
    cluster.fork().on('exit', (code, signal) => {
      if (stopping) return;
      console.error(`cluster child exited (${signal ?? code}); starting another in 1 s`);
      setTimeout(() => !stopping && fork(), 1000).unref();
    });
  };
  for (let i = 0; i < count; i++) fork();
  return {
    stop: () => {
      stopping = true;
      for (const child of Object.values(cluster.workers ?? {})) child?.process.kill('SIGTERM');
    },
    exited: new Promise((resolve) => {
      const check = (): void => {
        if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
      };
      cluster.on('exit', check);
      check();
    }),
  };
}

// Compared as real paths: started through a symbolic link (a deployment's `current/` link, say),
// the script's path differs from the module's and the server would exit without starting.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error('fatal:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
