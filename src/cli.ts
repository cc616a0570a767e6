/**
 * `npx shelfmark <command>`: the operator's tool over the same services as the HTTP API, so a rule
 * holds whichever way an operator acts. Data goes to stdout as JSON (pipe it to jq); messages go to
 * stderr. Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { progressReporter } from './cli-progress.js';
import { ListImporter } from './lml/import.js';
import { OfferImporter, parseOffersCsv, type RowError } from './offers/import.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { connectDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
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
  clients portal-link <id>              one-time partner-portal sign-in link (15 minutes, single use)
  offers import <file.csv>              import offers (validated first; re-running the file is safe)
  lists import <file.json>              import learning-material lists (validated first; re-runnable)
  admin-token --reset                   replace the admin token and print the new one
  deliveries list [--status pending|succeeded|failed] [--subscription <id>] [--limit n]
  deliveries retry <id>                 re-queue a finished delivery now

Listing commands print a table on a terminal and JSON otherwise; --json always prints JSON.
Every command accepts --help. Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration.
Configuration comes from the environment (DATABASE_URL, ADMIN_TOKEN, ...), as for the server.`;

/** Per-command help: `shelfmark <command> [sub] --help`. */
const HELP: Record<string, string> = {
  serve:
    'Usage: shelfmark serve [--role api|worker|all]\n\nRuns the HTTP API and/or the webhook delivery worker (ROLE, default all).',
  migrate: 'Usage: shelfmark migrate\n\nApplies pending database migrations and exits.',
  seed: 'Usage: shelfmark seed\n\nLoads the demo data into an empty database (nothing when clients exist). Prints a JSON summary.',
  'clients list':
    'Usage: shelfmark clients list [--json]\n\nLists API clients: a table on a terminal, JSON otherwise or with --json.',
  'clients create':
    'Usage: shelfmark clients create <name> [--scopes a,b]\n\nCreates a client and prints its credentials as JSON. The secrets are shown only now.',
  'clients reset-secret':
    'Usage: shelfmark clients reset-secret <id>\n\nResets the client secret; the old secret and every token minted with it stop working at once.',
  'clients rotate-webhook-secret':
    'Usage: shelfmark clients rotate-webhook-secret <id>\n\nRotates the webhook secret; the previous one keeps signing during WEBHOOK_SECRET_OVERLAP_SECONDS.',
  'clients revoke':
    'Usage: shelfmark clients revoke <id>\n\nRevokes a client: its credentials, tokens and portal sessions stop working.',
  'clients portal-link':
    "Usage: shelfmark clients portal-link <id> [--json]\n\nPrints a one-time sign-in link to the client's partner portal, valid 15 minutes, usable once.\nThe link is absolute when PUBLIC_BASE_URL is set. Send it to the partner over a channel you trust.",
  'admin-token':
    'Usage: shelfmark admin-token --reset\n\nReplaces the generated admin token and prints the new one (not when ADMIN_TOKEN is set).',
  'deliveries list':
    'Usage: shelfmark deliveries list [--status pending|succeeded|failed] [--subscription <id>] [--limit n] [--json]\n\nLists webhook deliveries, newest first.',
  'deliveries retry': 'Usage: shelfmark deliveries retry <id>\n\nRe-queues a finished delivery now.',
  'offers import':
    'Usage: shelfmark offers import <file.csv> [--json]\n\n' +
    'CSV with a header row; columns ean, price (seller price in euros, e.g. 12.50), condition\n' +
    '(excellent|good|acceptable), optional status (default published), remarks and key.\n' +
    'Every row is validated first: bad rows are reported as "line N: reason" and nothing is imported.\n' +
    'Rows are written in batches of 500, one transaction each. Each row has a stable key: the key column,\n' +
    'else "<ean>#<n>" for the n-th row with that EAN; a second run updates those offers instead of adding\n' +
    'duplicates. Progress: a bar with rate and ETA on a terminal, plain lines otherwise.',
  'lists import':
    'Usage: shelfmark lists import <file.json> [--json]\n\n' +
    'A JSON array of lists shaped like POST /api/admin/v1/lists (school, name, tags, items, ...) plus an\n' +
    'optional target status (e.g. published). Every entry is validated first (schema, EANs, school, status\n' +
    'transition): bad entries are reported as "line N: reason" and nothing is imported. Lists are written\n' +
    'in batches of 100, one transaction (with its events) each. Stable key: school + tags + name; a second\n' +
    'run changes only what differs.',
};

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Writes to stderr without a newline (progress redraws); lines via err() when absent. */
  errWrite?(text: string): void;
  /** Whether stdout / stderr are terminals (tables and progress bars) rather than pipes. */
  outTty?: boolean;
  errTty?: boolean;
}

const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  errWrite: (text) => process.stderr.write(text),
  outTty: process.stdout.isTTY === true,
  errTty: process.stderr.isTTY === true,
};

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
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export async function runCli(argv: readonly string[], io: Io = processIo): Promise<Outcome> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub, ...rest] = positionals;
  const specific = HELP[`${command ?? ''} ${sub ?? ''}`.trim()] ?? HELP[command ?? ''];
  if (values.help === true && specific !== undefined) {
    io.out(specific);
    return 0;
  }
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
  if (role !== undefined && role !== 'api' && role !== 'worker' && role !== 'all')
    throw new UsageError(`--role: expected api, worker or all, got "${role}"`);
  // Imported lazily: the server module pulls in the whole HTTP stack, which other commands do not need.
  const { main } = await import('./server.js');
  await main(role === undefined ? [] : ['--role', role]);
  return 'running';
}

async function withServices(command: string, io: Io, run: (services: Services) => Promise<number>): Promise<number> {
  if (!['migrate', 'seed', 'clients', 'admin-token', 'deliveries', 'offers', 'lists'].includes(command))
    throw new UsageError(`unknown command "${command}"`);
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
      io.err(
        `Admin token (generated now, shown once; set ADMIN_TOKEN to choose your own): ${services.generatedAdminToken}`,
      );
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

async function dispatch(
  services: Services,
  command: string,
  sub: string | undefined,
  rest: string[],
  values: Values,
  io: Io,
): Promise<number> {
  const json = (data: unknown): number => {
    io.out(JSON.stringify(data, null, 2));
    return 0;
  };
  /** Listings: a table for people at a terminal, JSON for pipes, scripts and --json. */
  const listing = (data: unknown, rows: Record<string, unknown>[], columns: string[]): number => {
    if (values.json === true || io.outTty !== true) return json(data);
    io.out(table(rows, columns));
    return 0;
  };
  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'seed': {
      const summary = await seedDemo(services);
      io.err(summary.seeded ? 'demo data seeded' : 'the database already has clients: nothing seeded');
      return json(summary);
    }
    case 'clients list': {
      const clients = await services.clients.list();
      return listing(
        clients,
        clients.map((c) => ({ ...c, scopes: c.scopes.join(' ') })),
        ['id', 'name', 'clientId', 'status', 'scopes', 'createdAt'],
      );
    }
    case 'clients portal-link': {
      const link = await services.webSessions.createPortalLink(required(rest[0], 'client id'));
      if (values.json === true || io.outTty !== true) return json(link);
      io.out(link.url);
      io.err(
        `valid until ${link.expiresAt}, usable once${services.deps.config.publicBaseUrl === undefined ? '; set PUBLIC_BASE_URL to get an absolute link' : ''}`,
      );
      return 0;
    }
    case 'offers import':
      return importFile(required(rest[0], 'CSV file'), io, values, async (text, progress) => {
        const { rows, errors } = parseOffersCsv(text);
        if (errors.length > 0) return { errors };
        return { summary: await new OfferImporter(services.deps.db, services.deps.clock).import(rows, progress) };
      });
    case 'lists import':
      return importFile(required(rest[0], 'JSON file'), io, values, async (text, progress) => {
        const importer = new ListImporter(services.deps.db, services.outbox, services.lists);
        const { rows, errors } = await importer.validate(text);
        if (errors.length > 0) return { errors };
        return { summary: await importer.import(rows, progress) };
      });
    case 'clients create': {
      const name = required(rest.join(' '), 'client name');
      const scopes = values.scopes
        ?.split(',')
        .map((scope) => scope.trim())
        .filter((scope) => scope !== '');
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
    case 'deliveries list': {
      const page = await services.deliveries.list({
        status: values.status,
        subscriptionId: values.subscription,
        limit: limitOf(values.limit),
      });
      return listing(
        page,
        page.data.map((d) => ({ ...d })),
        ['id', 'subscriptionId', 'event', 'status', 'attemptCount', 'lastStatusCode', 'createdAt'],
      );
    }
    case 'deliveries retry':
      return json(await services.deliveries.retry(required(rest[0], 'delivery id')));
    default:
      throw new UsageError(`unknown command "${[command, sub].filter((part) => part !== undefined).join(' ')}"`);
  }
}

/** A plain text table: one header row, columns padded to their widest value. */
function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => text(row[column]).length)));
  const render = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [render(columns), ...rows.map((row) => render(columns.map((column) => text(row[column]))))].join('\n');
}

type ImportRun = (
  text: string,
  progress: (done: number, total: number) => void,
) => Promise<{ errors: RowError[] } | { summary: object }>;

/**
 * Shared shape of the import commands: read the file (a missing file is bad usage, exit 2), validate
 * everything (bad rows: each on stderr as "line N: reason", nothing imported, exit 1), then import with
 * progress on stderr and the summary on stdout (JSON when piped or with --json).
 */
async function importFile(path: string, io: Io, values: Values, run: ImportRun): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const tty = io.errTty === true && io.errWrite !== undefined;
  const progress = progressReporter(
    { tty, write: (chunk) => io.errWrite?.(chunk), line: (line) => io.err(line) },
    'importing',
  );
  const result = await run(text, progress);
  if ('errors' in result) {
    for (const error of result.errors) io.err(`line ${error.line}: ${error.reason}`);
    io.err(`${result.errors.length} bad row(s) in ${path}: nothing was imported`);
    if (values.json === true) io.out(JSON.stringify({ imported: false, errors: result.errors }, null, 2));
    return 1;
  }
  if (values.json === true || io.outTty !== true) io.out(JSON.stringify(result.summary, null, 2));
  else
    io.out(
      Object.entries(result.summary)
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join(', '),
    );
  return 0;
}
