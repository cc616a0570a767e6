/**
 * `npx shelfmark <command>`: the operator's tool over the same services as the HTTP API, so a rule
 * holds whichever way an operator acts. Data goes to stdout as JSON (pipe it to jq); messages go to
 * stderr. Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration.
 *
 * The commands are a table (src/cli/commands/); this module finds the command, prepares what it
 * needs (configuration, a migrated database, the services) and renders its failure.
 */
import { parseArgs } from 'node:util';
import { type Command, type Context, type Io, OPTIONS, type Outcome, UsageError } from '../cli/command.js';
import { COMMANDS } from '../cli/commands/index.js';
import { systemClock } from '../clock.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { connectDatabase, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { PROBLEMS, Problem } from '../problems/catalogue.js';
import { createServices } from './services.js';

export type { Io, Outcome } from '../cli/command.js';

const usageLine = (command: Command): string => {
  const left = [command.name, command.args].filter((part) => part !== undefined).join(' ');
  return left.length < 38 ? `  ${left.padEnd(38)}${command.summary}` : `  ${left}\n${' '.repeat(40)}${command.summary}`;
};

export const USAGE = `Usage: shelfmark <command> [options]

${COMMANDS.map(usageLine).join('\n')}

Listing commands print a table on a terminal and JSON otherwise; --json always prints JSON.
Every command accepts --help. Exit codes: 0 done, 1 the operation failed, 2 bad usage or configuration.
Configuration comes from the environment (DATABASE_URL, ADMIN_TOKEN, ...), as for the server.`;

const usageOf = (command: Command): string =>
  `Usage: shelfmark ${[command.name, command.args].filter((part) => part !== undefined).join(' ')}`;

/** `shelfmark <command> --help`: the command's usage line and what it does. */
const helpOf = (command: Command): string =>
  `${usageOf(command)}\n\n${command.details ?? `${command.summary[0]?.toUpperCase() ?? ''}${command.summary.slice(1)}.`}`;

const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  errWrite: (text) => process.stderr.write(text),
  outTty: process.stdout.isTTY === true,
  errTty: process.stderr.isTTY === true,
};

/** The command named by the first one, two or three words, and the arguments after them. */
function find(words: string[]): { command: Command; args: string[] } | undefined {
  const [first, second, third] = words;
  const three = COMMANDS.find((command) => command.name === `${first} ${second} ${third}`);
  if (three !== undefined) return { command: three, args: words.slice(3) };
  const rest = words.slice(2);
  const two = COMMANDS.find((command) => command.name === `${first} ${second}`);
  if (two !== undefined) return { command: two, args: rest };
  const one = COMMANDS.find((command) => command.name === first);
  return one === undefined ? undefined : { command: one, args: words.slice(1) };
}

export async function runCli(argv: readonly string[], io: Io = processIo): Promise<Outcome> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const found = find(positionals);
  const help = values.help === true;
  if (positionals.length === 0 || positionals[0] === 'help') {
    io.out(USAGE);
    return positionals.length === 0 && !help ? 2 : 0;
  }
  if (help) {
    // A command's own help, or the commands of a group (`shelfmark clients --help`), or everything.
    const group = COMMANDS.filter((command) => command.name.startsWith(`${positionals[0]} `));
    io.out(found !== undefined ? helpOf(found.command) : group.length > 0 ? group.map(usageLine).join('\n') : USAGE);
    return 0;
  }
  try {
    if (found === undefined) {
      const known = COMMANDS.some((command) => command.name.startsWith(`${positionals[0]} `));
      throw new UsageError(`unknown command "${positionals.slice(0, known ? 2 : 1).join(' ')}"`);
    }
    return await run(found.command, { args: found.args, values, io });
  } catch (error) {
    if (error instanceof UsageError) {
      // A known command's misuse shows that command's usage, not every command's.
      io.err(
        found === undefined
          ? `${error.message}\n\n${USAGE}`
          : `${error.message}\n${usageOf(found.command)}\nMore: shelfmark ${found.command.name} --help`,
      );
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

/** `serve`'s server, imported when it runs: it pulls in the whole HTTP stack, which other commands do not need. */
const startServer = async (args: string[]): Promise<void> => (await import('./server.js')).main(args);

/** Prepares what the command needs (configuration, a migrated database, the services) and runs it. */
async function run(command: Command, context: Context): Promise<Outcome> {
  if (command.needs === 'nothing') return command.run({ ...context, startServer });
  const config: Config = loadConfig();
  const db: Db = await connectDatabase(config.databaseUrl, { sqliteCacheMib: config.sqliteCacheMib });
  try {
    await migrateToLatest(db);
    if (command.needs === 'database') return await command.run({ ...context, engine: db.engine });
    const services = await createServices({ config, db, clock: systemClock });
    if (services.generatedAdminToken !== undefined && command.printsAdminToken !== true) {
      context.io.err(
        `Admin token (generated now, shown once; set ADMIN_TOKEN to choose your own): ${services.generatedAdminToken}`,
      );
    }
    return await command.run({ ...context, services, deps: { config, db, clock: systemClock } });
  } finally {
    await db.close();
  }
}
