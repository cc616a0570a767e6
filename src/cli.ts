/**
 * `npx shelfmark <command>`: the operator's tool over the same services as the HTTP API, so a rule
 * holds whichever way an operator acts. Data goes to stdout as JSON (pipe it to jq); messages go to
 * stderr. Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration.
 */
import { parseArgs } from 'node:util';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { connectDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrations.js';
import { PROBLEMS, Problem } from './errors.js';
import { seedDemo } from './seed/demo.js';
import { createServices, resetAdminToken, type Services } from './services.js';

export const USAGE = `Usage: shelfmark <command> [options]

  serve [--role api|worker|all]         run the HTTP API and/or the delivery worker
  migrate                               apply pending database migrations
  seed                                  load demo data into an empty database
  clients list                          list API clients
  clients create <name> [--scopes a,b]  create a client (its secrets are shown once)
  clients reset-secret <id>             reset a client secret (old secret and tokens stop working)
  clients rotate-webhook-secret <id>    rotate a webhook secret (the old one overlaps for a while)
  clients revoke <id>                   revoke a client
  admin-token --reset                   replace the admin token and print the new one
  deliveries list [--status pending|succeeded|failed] [--subscription <id>] [--limit n]
  deliveries retry <id>                 re-queue a finished delivery now

Configuration comes from the environment (DATABASE_URL, ADMIN_TOKEN, ...), as for the server.`;

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

const processIo: Io = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };

class UsageError extends Error {}

/** What a command leaves behind: an exit code, or 'running' for `serve`, which keeps the process alive. */
export type Outcome = number | 'running';

const OPTIONS = {
  role: { type: 'string' },
  status: { type: 'string' },
  subscription: { type: 'string' },
  limit: { type: 'string' },
  scopes: { type: 'string' },
  reset: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export async function runCli(argv: readonly string[], io: Io = processIo): Promise<Outcome> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub, ...rest] = positionals;
  if (values.help === true || command === undefined || command === 'help') {
    io.out(USAGE);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  try {
    if (command === 'serve') return await serve(values);
    return await withServices(command, io, (services) => dispatch(services, command, sub, rest, values, io));
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(`configuration error: ${error.message}`);
      return 2;
    }
    if (error instanceof Problem) {
      io.err(`error: ${PROBLEMS[error.code].title}${error.detail === undefined ? '' : `: ${error.detail}`}`);
      return 1;
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

async function serve(values: Values): Promise<Outcome> {
  const role = values.role ?? undefined;
  if (role !== undefined && role !== 'api' && role !== 'worker' && role !== 'all') throw new UsageError(`--role: expected api, worker or all, got "${role}"`);
  // Imported lazily: the server module pulls in the whole HTTP stack, which other commands do not need.
  const { main } = await import('./server.js');
  await main(role === undefined ? [] : ['--role', role]);
  return 'running';
}

async function withServices(command: string, io: Io, run: (services: Services) => Promise<number>): Promise<number> {
  if (!['migrate', 'seed', 'clients', 'admin-token', 'deliveries'].includes(command)) throw new UsageError(`unknown command "${command}"`);
  const config: Config = loadConfig();
  const db: Db = await connectDatabase(config.databaseUrl);
  try {
    await migrateToLatest(db);
    if (command === 'migrate') {
      io.err(`database migrated (${db.engine})`);
      return 0;
    }
    const services = await createServices({ config, db, clock: systemClock });
    if (services.generatedAdminToken !== undefined && command !== 'admin-token') {
      io.err(`Admin token (generated now, shown once; set ADMIN_TOKEN to choose your own): ${services.generatedAdminToken}`);
    }
    return await run(services);
  } finally {
    await db.close();
  }
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`missing ${what}`);
  return value;
}

function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--limit: expected a whole number, got "${raw}"`);
  return Number(raw);
}

async function dispatch(services: Services, command: string, sub: string | undefined, rest: string[], values: Values, io: Io): Promise<number> {
  const json = (data: unknown): number => {
    io.out(JSON.stringify(data, null, 2));
    return 0;
  };
  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'seed': {
      const summary = await seedDemo(services);
      io.err(summary.seeded ? 'demo data seeded' : 'the database already has clients: nothing seeded');
      return json(summary);
    }
    case 'clients list':
      return json(await services.clients.list());
    case 'clients create': {
      const name = required(rest.join(' '), 'client name');
      const scopes = values.scopes?.split(',').map((scope) => scope.trim()).filter((scope) => scope !== '');
      const created = await services.clients.create({ name, scopes });
      io.err('client created; its secrets are shown only now');
      return json(created);
    }
    case 'clients reset-secret':
      return json(await services.clients.resetSecret(required(rest[0], 'client id')));
    case 'clients rotate-webhook-secret':
      return json(await services.clients.rotateWebhookSecret(required(rest[0], 'client id')));
    case 'clients revoke': {
      const id = required(rest[0], 'client id');
      await services.clients.revoke(id);
      io.err(`client ${id} revoked`);
      return 0;
    }
    case 'admin-token': {
      if (values.reset !== true) throw new UsageError('admin-token: pass --reset to replace the admin token');
      if (services.deps.config.adminToken !== undefined) {
        io.err('ADMIN_TOKEN is set in the environment and takes precedence: change it there instead');
        return 1;
      }
      io.out(await resetAdminToken(services));
      io.err('admin token replaced; running servers refuse the previous one within 5 seconds');
      return 0;
    }
    case 'deliveries list':
      return json(await services.deliveries.list({ status: values.status, subscriptionId: values.subscription, limit: limitOf(values.limit) }));
    case 'deliveries retry':
      return json(await services.deliveries.retry(required(rest[0], 'delivery id')));
    default:
      throw new UsageError(`unknown command "${[command, sub].filter((part) => part !== undefined).join(' ')}"`);
  }
}
