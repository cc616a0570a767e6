/**
 * The pruner of the worker role: a prune a minute after start, then every PRUNE_INTERVAL_SECONDS.
 * Every worker node runs one; the lock lets one prune at a time, and a node skips its turn when the
 * shared record shows a prune (by any node) finished within the interval, so N nodes prune about once
 * an interval between them, not N times.
 */
import type { Clock } from '../clock.js';
import type { WorkerLogger } from '../delivery/worker-options.js';
import type { RetentionService } from './service.js';

/** The first prune waits this long after start, so it never slows a start or a rolling restart. */
export const FIRST_PRUNE_DELAY_MS = 60_000;

export interface PrunerOptions {
  logger: Pick<WorkerLogger, 'error'> & { info(object: object, message: string): void };
  intervalMs: number;
  /** Tests shorten it. */
  firstDelayMs?: number;
}

export interface StartedPruner {
  /** Ends a prune under way between two batches and waits for it. */
  stop(): Promise<void>;
}

export function startPruner(retention: RetentionService, clock: Clock, options: PrunerOptions): StartedPruner {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const due = async (): Promise<boolean> => {
    const last = await retention.lastPrune();
    // Slightly less than the interval: the node that pruned last is not skipped by its own record.
    return last === undefined || !last.complete || clock.now() - last.finishedAt >= options.intervalMs * 0.9;
  };
  const once = async (): Promise<void> => {
    try {
      if (!(await due())) return;
      const outcome = await retention.prune({ stopped: () => stopping });
      if (outcome.status === 'pruned')
        options.logger.info(
          { rows: outcome.record.rows, ms: outcome.record.finishedAt - outcome.record.startedAt, space: outcome.space },
          'pruned',
        );
    } catch (error) {
      options.logger.error({ err: error }, 'prune failed; the next one retries');
    }
  };
  const schedule = (ms: number): void => {
    if (stopping) return;
    timer = setTimeout(() => {
      running = once().finally(() => {
        running = undefined;
        schedule(options.intervalMs);
      });
    }, ms);
    timer.unref();
  };
  if (options.intervalMs > 0) schedule(options.firstDelayMs ?? FIRST_PRUNE_DELAY_MS);
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
