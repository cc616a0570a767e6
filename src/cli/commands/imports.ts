/**
 * The bulk imports: `offers import <file.csv>` and `lists import <file.json>`. Both validate the whole
 * file first and import nothing when anything is wrong; see importFile for the shared shape.
 */

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { cliInitiator } from '../../audit/initiator.js';
import { ListImporter } from '../../lml/import.js';
import { OfferImporter, parseOffersCsv } from '../../offers/import.js';
import { type Command, type Context, required, UsageError } from '../command.js';
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
  summary: 'import offers (validated first; re-running the file is safe)',
  details:
    'CSV with a header row; columns ean, price (seller price in euros, e.g. 12.50), condition\n' +
    '(excellent|good|acceptable), optional status (default published), remarks and key.\n' +
    'Every row is validated first: bad rows are reported as "line N: reason" and nothing is imported.\n' +
    'Rows are written in batches of 500, one transaction each. Each row has a stable key: the key column,\n' +
    'else "<ean>#<n>" for the n-th row with that EAN; a second run updates those offers instead of adding\n' +
    'duplicates. Progress: a bar with rate and ETA on a terminal, plain lines otherwise.',
  needs: 'services',
  async run(context) {
    const { services, deps } = context;
    return importFile(required(context.args[0], 'CSV file'), context, async (text, path, progress) => {
      const { rows, errors } = parseOffersCsv(text);
      if (errors.length > 0)
        return {
          refused: {
            lines: errors.map((error) => `line ${error.line}: ${error.reason}`),
            summary: `${counted(errors.length, 'bad row')} in ${path}: nothing was imported`,
            errors,
          },
        };
      return {
        imported: await new OfferImporter(services.outbox, deps.clock).import(
          rows,
          { initiator: cliInitiator(), file: basename(path) },
          progress,
        ),
      };
    });
  },
};

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
      const importer = new ListImporter(deps.db, services.outbox, services.lists, deps.clock);
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
 * Shared shape of the import commands: read the file (a missing file is bad usage, exit 2), validate
 * everything (problems on stderr, one per line, nothing imported, exit 1), then import with progress on
 * stderr and the summary on stdout (JSON when piped or with --json).
 */
async function importFile(
  path: string,
  { io, values }: Context,
  run: (text: string, path: string, progress: Progress) => Promise<{ refused: Refusal } | { imported: object }>,
): Promise<number> {
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
  const result = await run(text, path, progress);
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
