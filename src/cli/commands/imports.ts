/**
 * The bulk imports: `offers import <file.csv>` and `lists import <file.json>`. Both import nothing when
 * anything is wrong. Offers are checked and written as the file is read, in one transaction;
 * lists are validated whole first (see importFile for the shared shape).
 */

import { type FileHandle, open, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { cliInitiator } from '../../audit/initiator.js';
import { ListImporter } from '../../lml/import.js';
import { OfferImporter } from '../../offers/import.js';
import { checkedRowsOnThread } from '../../offers/import-reader.js';
import { type Command, type Context, type Io, required, UsageError } from '../command.js';
import { counted } from '../nouns.js';
import { progressReporter } from '../progress.js';

type Progress = (done: number, total: number) => void;

/** A file that cannot be imported: one sentence per problem, a closing sentence, and the problems for --json. */
interface Refusal {
  lines: string[];
  summary: string;
  errors: readonly object[];
}

export const importOffers: Command = {
  name: 'offers import',
  args: '<file.csv> [--json]',
  summary: 'import offers (all or nothing; re-running the file is safe)',
  details:
    'CSV with a header row; columns ean, price (seller price in euros, e.g. 12.50), condition\n' +
    '(excellent|good|acceptable), optional status (default published), remarks and key.\n' +
    'Rows are checked and written as the file is read, all in one transaction: bad rows are reported as\n' +
    '"line N: reason" and nothing is imported. Each row has a stable key: the key column, else "<ean>#<n>"\n' +
    'for the n-th row with that EAN; a second run updates those offers instead of adding duplicates.\n' +
    'Progress: a bar with rate and ETA on a terminal, plain lines otherwise.',
  needs: 'services',
  async run(context) {
    const { services, deps } = context;
    const path = required(context.args[0], 'CSV file');
    const file = await openFile(path);
    try {
      const expected = await dataLines(file);
      const progress = progressOf(context.io);
      await deps.db.dialect.roomForBulkWrite(deps.db.kysely);
      const result = await new OfferImporter(services.work, deps.clock).importChecked(
        checkedRowsOnThread(path),
        { initiator: cliInitiator(), file: basename(path) },
        progress,
        expected,
      );
      // The whole import was one transaction: on SQLite its pages sit in the WAL until a checkpoint,
      // which the server's next write would otherwise do, stalling its requests while it copies them.
      if ('imported' in result) await deps.db.dialect.checkpoint(deps.db.kysely, 'truncate');
      // On PostgreSQL the planner would plan the next reads (a server reading the whole catalogue
      // page by page) from the table's size before the import until autovacuum caught up: sorting
      // the whole table for every page instead of reading the index (docs/performance.md#decisions).
      if ('imported' in result) await deps.db.dialect.analyze(deps.db.kysely, ['offers', 'offer_import_keys']);
      if ('errors' in result) {
        const { errors } = result;
        return report(context, {
          refused: {
            lines: errors.map((error) => `line ${error.line}: ${error.reason}`),
            summary: `${counted(errors.length, 'bad row')} in ${path}: nothing was imported`,
            errors,
          },
        });
      }
      return report(context, result);
    } finally {
      await file.close();
    }
  },
};

/** Opens the file to import; one that cannot be opened is bad usage (exit 2). */
async function openFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The data rows a CSV file holds, counted by its line ends (the header and a last line without one
 * taken into account): the progress total. A quoted field spanning lines makes it a little high; the
 * last report gives the rows actually read.
 */
async function dataLines(file: FileHandle): Promise<number> {
  const buffer = Buffer.alloc(1 << 16);
  let lines = 0;
  let last = 0x0a;
  for (let position = 0; ; ) {
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    for (let at = buffer.indexOf(0x0a, 0); at >= 0 && at < bytesRead; at = buffer.indexOf(0x0a, at + 1)) lines++;
    last = buffer[bytesRead - 1] ?? last;
    position += bytesRead;
  }
  return Math.max(0, lines + (last === 0x0a ? 0 : 1) - 1);
}

function progressOf(io: Io): Progress {
  const tty = io.errTty === true && io.errWrite !== undefined;
  return progressReporter({ tty, write: (chunk) => io.errWrite?.(chunk), line: (line) => io.err(line) }, 'importing');
}

export const importLists: Command = {
  name: 'lists import',
  args: '<file.json> [--json]',
  summary: 'import learning-material lists (validated first; re-runnable)',
  details:
    'A JSON array of lists shaped like POST /api/admin/v1/lists (school, name, tags, items, ...) plus an\n' +
    'optional target status (e.g. published). Every entry is validated first (schema, EANs, school, status\n' +
    'transition): each problem is reported as "entry N (line L): reason" and nothing is imported. Lists are\n' +
    'written in batches of 100, one transaction (with its events) each. Stable key: school + tags + name; a\n' +
    'second run changes only what differs. Lists it creates are marked imported.',
  needs: 'services',
  async run(context) {
    const { services, deps } = context;
    return importFile(required(context.args[0], 'JSON file'), context, async (text, path, progress) => {
      const importer = new ListImporter(deps.db, services.work, services.lists);
      const { rows, errors } = await importer.validate(text);
      if (errors.length > 0) {
        const entries = new Set(errors.map((error) => error.entry)).size;
        return {
          refused: {
            lines: errors.map((e) =>
              e.entry === 0 ? `${path}: ${e.reason}` : `entry ${e.entry} (line ${e.line}): ${e.reason}`,
            ),
            summary: `${entries === 1 ? '1 entry' : `${entries} entries`} of ${path} cannot be imported, so nothing was imported`,
            errors,
          },
        };
      }
      return { imported: await importer.import(rows, { initiator: cliInitiator(), file: basename(path) }, progress) };
    });
  },
};

/**
 * The list import's shape: read the file (a missing file is bad usage, exit 2), validate everything,
 * then import with progress on stderr.
 */
async function importFile(
  path: string,
  context: Context,
  run: (text: string, path: string, progress: Progress) => Promise<{ refused: Refusal } | { imported: object }>,
): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return report(context, await run(text, path, progressOf(context.io)));
}

/** Problems on stderr, one per line (exit 1), or the summary on stdout (JSON when piped or with --json). */
function report({ io, values }: Context, result: { refused: Refusal } | { imported: object }): number {
  if ('refused' in result) {
    const { lines, summary, errors } = result.refused;
    for (const line of lines) io.err(line);
    io.err(summary);
    if (values.json === true) io.out(JSON.stringify({ imported: false, errors }, null, 2));
    return 1;
  }
  const summary = result.imported;
  if (values.json === true || io.outTty !== true) io.out(JSON.stringify(summary, null, 2));
  else
    io.out(
      Object.entries(summary)
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join(', '),
    );
  return 0;
}
