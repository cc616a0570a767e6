/**
 * The shape of a CLI command: one entry of the command table (src/cli/commands/index.ts) gives the
 * words that select it, its usage, its help text and what it runs. The usage text and every
 * `--help` are generated from the table, so a command is described in one place.
 */

import type { parseArgs } from 'node:util';
import type { Initiator } from '../audit/initiator.js';
import type { ClientService } from '../auth/client-service.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { DeliveryService } from '../delivery/service.js';
import type { EventfulWork } from '../events/outbox.js';
import type { OperatorService } from '../identity/operator-service.js';
import type { WebSessions } from '../identity/sessions.js';
import type { ListService } from '../lml/list-service.js';
import type { RetentionService } from '../retention/service.js';
import type { DemoSeedServices } from '../seed/demo.js';

export const OPTIONS = {
  role: { type: 'string' },
  name: { type: 'string' },
  status: { type: 'string' },
  subscription: { type: 'string' },
  limit: { type: 'string' },
  scopes: { type: 'string' },
  reset: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  vacuum: { type: 'boolean' },
  unpaced: { type: 'boolean' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Writes to stderr without a newline (progress redraws); lines via err() when absent. */
  errWrite?(text: string): void;
  /** Whether stdout / stderr are terminals (tables and progress bars) rather than pipes. */
  outTty?: boolean;
  errTty?: boolean;
}

/** What a command leaves behind: an exit code, or 'running' for `serve`, which keeps the process alive. */
export type Outcome = number | 'running';

/** Bad usage: the message and the usage text go to stderr, exit code 2. */
export class UsageError extends Error {}

/** The services the commands use: the CLI's entry (src/main/cli.ts) hands over its service graph, seen through this. */
export interface CliServices extends DemoSeedServices {
  clients: ClientService;
  deliveries: DeliveryService;
  lists: ListService;
  work: EventfulWork;
  webSessions: WebSessions;
  retention: RetentionService;
  /** Named API tokens (`operators token …`). */
  operators: Pick<OperatorService, 'apiTokens'>;
  resetAdminToken(by: Initiator): Promise<string>;
}

/** What the services were built from. */
export interface CliDeps {
  config: Config;
  db: Db;
  clock: Clock;
}

/** Runs the server in this process with these arguments: handed over by the CLI's entry, which knows the server. */
export type StartServer = (args: string[]) => Promise<void>;

export interface Context {
  /** Positional arguments after the command's words. */
  args: string[];
  values: Values;
  io: Io;
}

interface Described {
  /** The words that select the command, e.g. "clients portal-link". */
  name: string;
  /** Arguments and options after the name, as the usage line shows them. */
  args?: string;
  /** One line for the command list. */
  summary: string;
  /** The `--help` text under the usage line (the summary when absent). */
  details?: string;
}

/**
 * `needs` says what the runner prepares: nothing but the server's start (`serve`), a migrated
 * database (`migrate`), or the services over it (every other command).
 */
export type Command = Described &
  (
    | { needs: 'nothing'; run(context: Context & { startServer: StartServer }): Promise<Outcome> }
    | { needs: 'database'; run(context: Context & { engine: string }): Promise<number> }
    | {
        needs: 'services';
        /** Do not print a just-generated admin token (the command prints the token itself). */
        printsAdminToken?: boolean;
        run(context: Context & { services: CliServices; deps: CliDeps }): Promise<number>;
      }
  );

export function required(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`missing ${what}`);
  return value;
}

/** Prints data as JSON on stdout. */
export function json(io: Io, data: unknown): number {
  io.out(JSON.stringify(data, null, 2));
  return 0;
}

/** Listings: a table for people at a terminal, JSON for pipes, scripts and --json. */
export function listing(
  { io, values }: Context,
  data: unknown,
  rows: Record<string, unknown>[],
  columns: string[],
): number {
  if (values.json === true || io.outTty !== true) return json(io, data);
  io.out(table(rows, columns));
  return 0;
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
