/**
 * The product's prune, run as an operator runs it (`node bin/shelfmark.js prune` with DATABASE_URL,
 * in a process of its own, the retention settings at their defaults), and the checks of what it left:
 * nothing older than its retention, no attempt without its delivery, no pending delivery touched.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { count, type SqlRunner } from './history-db.js';
import { DAY_MS, pendingRows } from './history-seed.js';
import { type Child, ROOT, spawnNode } from './proc.js';
import { ADMIN_TOKEN, type Database } from './shelfmark.js';

/** The defaults of the configuration schema: succeeded 30 days, failed 90, events and hourly counters 90. */
export const RETENTION_DEFAULT_DAYS = { succeeded: 30, failed: 90, events: 90, stats: 90 } as const;

const CLI = join('bin', 'shelfmark.js');

/** Whether this build has `shelfmark prune` (the retention work may not have landed yet). */
export function pruneAvailable(): boolean {
  const result = spawnSync(process.execPath, [join(ROOT, CLI), 'prune', '--help'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return result.status === 0 && !/unknown command/i.test(`${result.stdout}${result.stderr}`);
}

/** `shelfmark prune [args]` on the database, in its own process; `env` adds settings (the pruner's batch and pause). */
export function startPrune(db: Database, args: string[] = [], env: Record<string, string> = {}): Child {
  return spawnNode('shelfmark prune', CLI, ['prune', ...args], {
    env: { DATABASE_URL: db.url, ADMIN_TOKEN, LOG_LEVEL: 'warn', ...env },
  });
}

export interface PruneCall {
  seconds: number;
  code: number | string;
  /** What the command printed on stdout (JSON when it is JSON). */
  output: unknown;
}

/** Runs a prune to its end (at most `timeoutMs`) and returns its wall time and output. */
export async function runPrune(
  db: Database,
  args: string[] = [],
  env: Record<string, string> = {},
  timeoutMs = 30 * 60_000,
): Promise<PruneCall> {
  const started = performance.now();
  const child = startPrune(db, args, env);
  const code = await child.exited(timeoutMs);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`shelfmark prune ${args.join(' ')} exited with ${String(code)}: ${child.stderr()}`);
  const text = child.lines.join('\n');
  let output: unknown = text;
  try {
    output = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { seconds, code, output };
}

/**
 * Rows a prune started at `startedAt` must have removed, per rule (every count should be 0): the
 * prune's own clock is later, so its cutoffs are later than these.
 */
export async function retentionLeftovers(runner: SqlRunner, startedAt: number): Promise<Record<string, number>> {
  const cut = (days: number): number => startedAt - days * DAY_MS;
  const days = RETENTION_DEFAULT_DAYS;
  return {
    [`succeeded deliveries older than ${days.succeeded} days`]: await count(
      runner,
      `deliveries where status = 'succeeded' and completed_at < ${cut(days.succeeded)}`,
    ),
    [`failed deliveries older than ${days.failed} days`]: await count(
      runner,
      `deliveries where status = 'failed' and completed_at < ${cut(days.failed)}`,
    ),
    'attempts without their delivery': await count(
      runner,
      'delivery_attempts a where not exists (select 1 from deliveries d where d.id = a.delivery_id)',
    ),
    [`events older than ${days.events} days that no delivery refers to`]: await count(
      runner,
      `events e where e.created_at < ${cut(days.events)} and not exists (select 1 from deliveries d where d.event_id = e.id)`,
    ),
    [`hourly counters older than ${days.stats} days`]: await count(
      runner,
      `delivery_stats where hour < ${cut(days.stats) - (cut(days.stats) % 3_600_000)}`,
    ),
  };
}

/** The pending deliveries that changed or went (their row, attempts or event), against a snapshot taken before. */
export async function pendingChanged(runner: SqlRunner, before: ReadonlyMap<string, string>): Promise<string[]> {
  const after = await pendingRows(runner);
  return [...before].filter(([id, fingerprint]) => after.get(id) !== fingerprint).map(([id]) => id);
}
