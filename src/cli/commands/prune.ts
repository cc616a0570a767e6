/** `shelfmark prune`: retention now (paced, its progress on stderr; --unpaced back to back), or what it would remove (--dry-run); --vacuum rewrites a SQLite file once. */
import { cliInitiator } from '../../audit/initiator.js';
import { isoTime } from '../../clock.js';
import type { SpaceReport } from '../../retention/sqlite-space.js';
import { type Command, listing, UsageError } from '../command.js';
import { counted } from '../nouns.js';
import { pruneWatch } from '../prune-progress.js';

const mb = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`;
const spaceLine = (what: string, space: SpaceReport): string =>
  `${what}: ${mb(space.bytesBefore)} → ${mb(space.bytesAfter)} (auto_vacuum=${space.autoVacuum}, ${mb(space.freeBytes)} free inside the file for new rows)`;

export const prune: Command = {
  name: 'prune',
  args: '[--dry-run] [--unpaced] [--vacuum] [--json]',
  summary: 'remove what the retention settings no longer keep',
  details: `Removes now what the retention settings no longer keep (docs/operating/retention.md): succeeded
and failed deliveries with their attempts, events no delivery refers to, old response bodies, expired
idempotency keys, sessions and portal links, old change-log entries, hourly counters and audit records.
Pending deliveries are never removed. Paced like the background pruner: short transactions with pauses
(PRUNE_BATCH_SIZE, PRUNE_PAUSE_MS), so the service can keep running; a large backlog then takes minutes
to hours. Progress (rows removed per table, the time left) goes to stderr. Waits for nobody: when
another process is pruning it exits 1.

  --dry-run  count what would go, per table and reason; change nothing
  --unpaced  remove in back-to-back batches, as PRUNE_PAUSE_MS=0 does: for a maintenance window, as
             the service's writes wait behind each batch meanwhile
  --vacuum   SQLite: afterwards rewrite the file once with auto_vacuum=incremental (VACUUM), so this
             and later prunes return freed space to the file system. Needs free disk of the file's
             size and holds the write lock while it runs: stop the service first on a large file.

Prints a table on a terminal and JSON otherwise.`,
  needs: 'services',
  async run(context) {
    const { io, values, services, deps } = context;
    const dryRun = values['dry-run'] === true;
    for (const other of ['vacuum', 'unpaced'] as const)
      if (dryRun && values[other] === true) throw new UsageError(`prune: --dry-run and --${other} exclude each other`);
    const columns = ['table', 'rows', 'reason'];
    if (dryRun) {
      const items = await services.retention.dryRun();
      const total = items.reduce((sum, item) => sum + item.rows, 0);
      io.err(`dry run: ${counted(total, 'row')} would go; nothing was changed`);
      return listing(
        context,
        { dryRun: true, items, total },
        items.map((item) => ({ ...item })),
        columns,
      );
    }
    const tty = io.errTty === true && io.errWrite !== undefined;
    const watch = pruneWatch({ tty, write: (text) => io.errWrite?.(text), line: (line) => io.err(line) });
    watch.begin();
    const outcome = await services.retention
      .prune({ by: cliInitiator(), unpaced: values.unpaced === true, onProgress: (progress) => watch.report(progress) })
      .finally(() => watch.end());
    if (outcome.status === 'busy') {
      io.err('another process is pruning now (it holds the prune lock); nothing was done');
      return 1;
    }
    const { record, items, space } = outcome;
    const vacuum = values.vacuum === true ? await services.retention.vacuum() : undefined;
    if (values.vacuum === true && vacuum === undefined)
      io.err('--vacuum: PostgreSQL reuses freed space by itself (autovacuum); nothing to do');
    const total = items.reduce((sum, item) => sum + item.rows, 0);
    io.err(
      `pruned ${counted(total, 'row')} in ${((record.finishedAt - record.startedAt) / 1000).toFixed(1)} s${record.complete ? '' : ' (stopped early)'} (${deps.db.engine})`,
    );
    if (space !== undefined) io.err(spaceLine('database', space));
    if (vacuum !== undefined) io.err(spaceLine('vacuum', vacuum));
    const data = {
      dryRun: false,
      paced: services.retention.pacing(values.unpaced === true).paced,
      startedAt: isoTime(record.startedAt),
      finishedAt: isoTime(record.finishedAt),
      complete: record.complete,
      items,
      total,
      rows: record.rows,
      space: space ?? null,
      vacuum: vacuum ?? null,
    };
    return listing(
      context,
      data,
      items.map((item) => ({ ...item })),
      columns,
    );
  },
};
