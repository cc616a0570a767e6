/**
 * The process entry: read config, connect, migrate, seed, listen, run the delivery worker, and shut
 * down cleanly on SIGTERM/SIGINT (in-flight requests finish, leases are released by expiry).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, type Role } from './config.js';
import { connectDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrations.js';
import { Metrics } from './ops/metrics.js';
import { DEMO_CLIENT, seedDemo } from './seed/demo.js';

function roleFromArgs(args: readonly string[], fallback: Role): Role {
  const index = args.indexOf('--role');
  const value = index >= 0 ? args[index + 1] : args.find((arg) => arg.startsWith('--role='))?.slice('--role='.length);
  if (value === undefined) return fallback;
  if (value === 'api' || value === 'worker' || value === 'all') return value;
  console.error(`--role: expected api, worker or all, got "${value}"`);
  process.exit(2);
}

export async function main(args: readonly string[] = process.argv.slice(2)): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const role = roleFromArgs(args, config.role);
  const db = await connectDatabase(config.databaseUrl);
  await migrateToLatest(db);
  const app = await buildApp({ config, db, clock: systemClock, metrics: new Metrics({ defaultMetrics: true }) });
  const { services } = app;

  const seed = config.seed === 'demo' ? await seedDemo(services) : undefined;

  let address = '(worker only)';
  if (role !== 'worker') address = await app.listen({ port: config.port, host: config.host });
  const worker = role === 'api' ? undefined : services.startWorker();

  const shown = address.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost');
  const lines = [`Shelfmark ${role === 'worker' ? 'worker' : `listening on ${shown}`} (role ${role}, ${db.engine})`];
  if (services.generatedAdminToken !== undefined) {
    lines.push(`Admin token (generated on first start, shown once; set ADMIN_TOKEN to choose your own): ${services.generatedAdminToken}`);
  }
  if (seed?.seeded === true) {
    lines.push(
      `Demo data seeded: ${seed.offers} offers, ${seed.schools} schools, ${seed.lists} lists.`,
      `Demo client: clientId=${DEMO_CLIENT.clientId} clientSecret=${DEMO_CLIENT.clientSecret}`,
      `Try: curl -u ${DEMO_CLIENT.clientId}:${DEMO_CLIENT.clientSecret} ${shown}/api/auth/token`,
    );
  }
  if (role !== 'worker') lines.push(`API reference: ${shown}/docs   Dashboard: ${shown}/dashboard`);
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await worker?.stop();
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error('fatal:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
