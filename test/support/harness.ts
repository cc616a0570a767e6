/**
 * A whole Shelfmark instance for a test: a fresh database, a manual clock, the app built in-process
 * (inject) and, on request, listening on a free loopback port.
 */

import pino from 'pino';
import { ManualClock } from '../../src/clock.js';
import { type Config, testConfig } from '../../src/config.js';
import type { Engine } from '../../src/db/database.js';
import type { WorkerLogger } from '../../src/delivery/worker-options.js';
import { type App, buildApp } from '../../src/main/app.js';
import { createServices, type Deps, type Services } from '../../src/main/services.js';
import { watchContract } from './contract.js';
import { freshDatabase, type TestDatabase } from './engines.js';
import { type Bearer, bearerHeaders, type Requester, requester } from './requests.js';
import { until } from './until.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Harness {
  app: App;
  /** The app's service graph, for tests that call a service or drive a worker directly. */
  services: Services;
  clock: ManualClock;
  config: Config;
  database: TestDatabase;
  /** The answers so far that its API document does not allow (contract.ts); close throws on any. */
  violations: readonly string[];
  /** The admin's authorization header, for tests that call `app.inject` themselves. */
  admin: Record<string, string>;
  /** Requests with a client's bearer token (see requests.ts). */
  as(client: Bearer): Requester;
  /** Requests with the admin token. */
  asAdmin(): Requester;
  /** Requests without credentials. */
  anonymous(): Requester;
  close(): Promise<void>;
  /** Listens on 127.0.0.1 with a free port and returns the base URL. */
  listen(): Promise<string>;
}

export interface HarnessOptions {
  /** A SQLite file instead of memory, so other processes can open the same database. */
  file?: boolean;
  /** Extra injected parts, e.g. a fake DNS lookup. */
  deps?: Pick<Deps, 'dnsLookup' | 'sender'>;
  /** Log lines go here (at the config's LOG_LEVEL) instead of being switched off. */
  logStream?: NodeJS.WritableStream;
}

export async function createHarness(
  engine: Engine,
  overrides: Partial<Config> = {},
  options: HarnessOptions = {},
): Promise<Harness> {
  const database = await freshDatabase(engine, options);
  const clock = new ManualClock(Date.UTC(2026, 8, 1, 8, 0, 0));
  const config = testConfig({ adminToken: ADMIN_TOKEN, ...overrides });
  const deps = { config, db: database.db, clock, ...options.deps };
  const services = withWorkersLoggingTo(await createServices(deps), workerLogger(config, options.logStream));
  const app = await buildApp(
    { ...deps, services },
    options.logStream === undefined ? { logger: false } : { logStream: options.logStream },
  );
  const violations = watchContract(app);
  await app.ready();
  // As a proxy routing by /readyz would: the read model's first reading of the catalogue has ended.
  await until(() => services.offers.readModel.warm, 'the offers read model to warm up', 20_000, 1);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  return {
    app,
    services,
    clock,
    config,
    database,
    violations,
    admin,
    as: (client) => requester(app, bearerHeaders(client)),
    asAdmin: () => requester(app, admin),
    anonymous: () => requester(app, {}),
    listen: async () => {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no address');
      return `http://127.0.0.1:${address.port}`;
    },
    close: async () => {
      await app.close();
      await database.drop();
      // Every answer this instance gave was one its API document allows (contract.ts).
      if (violations.length > 0)
        throw new Error(`answers outside the API document:\n${[...new Set(violations)].join('\n')}`);
    },
  };
}

/**
 * Where the harness's delivery workers log: where its app logs, into `logStream` at LOG_LEVEL when a
 * test reads the lines, nowhere otherwise. A worker's own default is stderr at LOG_LEVEL, which put JSON
 * lines into the test run's output whenever a test raised LOG_LEVEL to read its app's lines.
 */
export function workerLogger(config: Config, logStream: NodeJS.WritableStream | undefined): WorkerLogger {
  return logStream === undefined
    ? pino({ level: 'silent' })
    : pino({ name: 'delivery', level: config.logLevel }, logStream);
}

/** The service graph with `logger` as the default of every worker it makes (a test may still pass its own). */
function withWorkersLoggingTo(services: Services, logger: WorkerLogger): Services {
  return {
    ...services,
    createDeliveryWorker: (options = {}) => services.createDeliveryWorker({ logger, ...options }),
    startWorker: (options = {}, placement) => services.startWorker({ logger, ...options }, placement),
  };
}

export const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export interface TestClient {
  id: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  token: string;
  bearer: Record<string, string>;
}

/** Creates a client through the admin API and returns its credentials and a fresh access token. */
export async function createClientWithToken(
  harness: Harness,
  name = 'Test shop',
  scopes?: string[],
): Promise<TestClient> {
  const created = await harness.asAdmin().post('/api/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
  if (created.statusCode !== 201) throw new Error(`client creation failed: ${created.body}`);
  const client = created.json<{ id: string; clientId: string; clientSecret: string; webhookSecret: string }>();
  const tokenResponse = await harness
    .anonymous()
    .get('/api/auth/token', { headers: { authorization: basic(client.clientId, client.clientSecret) } });
  const token = tokenResponse.json<{ access_token: string }>().access_token;
  return { ...client, token, bearer: { authorization: `Bearer ${token}` } };
}
