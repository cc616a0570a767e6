/**
 * `shelfmark prune`'s progress, on stderr so stdout keeps the report parseable: rows removed so far
 * per table against what was counted at the start, and the time left. On a terminal one line is
 * redrawn; in a pipe or a file a line is written at every tenth of the work and at least every 30 s,
 * so a paced prune of hours is never silent and its log stays short. A prune that fits in one batch
 * per table writes nothing. A paced prune expected to take long says how to run it unpaced.
 */
import { PRUNE_TARGETS, type PruneTarget } from '../retention/policy.js';
import { type PruneProgress, secondsLeft, shareDone, transactionsLeft } from '../retention/progress.js';
import { counted } from './nouns.js';
import { duration, type ProgressSink } from './progress.js';

/** A paced prune expected to take at least this long is told how to run unpaced. */
export const HINT_FROM_SECONDS = 60;
/** Without a terminal, a line at least this often. */
export const LINE_EVERY_MS = 30_000;

export interface PruneWatch {
  /** Before the count, which reads what will go (seconds on a long history): said on a terminal only. */
  begin(): void;
  /** Told when the prune starts (transactions 0) and between its transactions. */
  report(progress: PruneProgress): void;
  /** Clears a redrawn line before the summary. */
  end(): void;
}

const number = (n: number): string => n.toLocaleString('en-US');
const rowsOf = (p: PruneProgress, target: PruneTarget): string =>
  `${target} ${number(p.done[target])} of ${number(p.expected[target])}`;
const left = (seconds: number | undefined): string =>
  seconds === undefined ? 'time left unknown' : seconds < 1 ? 'under 1s left' : `about ${duration(seconds)} left`;

/**
 * The hint of a paced prune expected to take long; undefined when the prune is unpaced or short. At
 * the start `seconds` is the least the pauses take (the pause grows with a slow transaction); later it
 * is measured, the pace so far.
 */
export function unpacedHint(progress: PruneProgress, seconds: number | undefined): string | undefined {
  const { pacing } = progress;
  if (!pacing.paced || seconds === undefined || seconds < HINT_FROM_SECONDS) return undefined;
  const rows = PRUNE_TARGETS.reduce(
    (sum, target) => sum + Math.max(0, progress.expected[target] - progress.done[target]),
    0,
  );
  const time =
    progress.transactions === 0 ? `at least ${duration(seconds)}` : `about ${duration(seconds)} at the pace so far`;
  return [
    `paced like the background pruner: ${counted(rows, 'row')} to go in about ${counted(transactionsLeft(progress), 'transaction')}, ` +
      `each followed by a pause of ${pacing.pauseMs} ms (PRUNE_PAUSE_MS) or 100 times its own length: ${time}`,
    'in a maintenance window, `npx shelfmark prune --unpaced` removes them in back-to-back batches ' +
      "(the service's writes then wait behind each batch)",
  ].join('\n');
}

export function pruneWatch(sink: ProgressSink, now: () => number = Date.now): PruneWatch {
  let startedAt = now();
  let lineAt = startedAt;
  let tenth = 0;
  let drawn = 0;
  let hinted = false;
  const clear = (): void => {
    if (drawn > 0) sink.write(`\r${' '.repeat(drawn)}\r`);
    drawn = 0;
  };
  /** Says how to run unpaced, once: at the start by the least time, else as soon as the pace shows it. */
  const hint = (progress: PruneProgress, seconds: number | undefined): void => {
    const text = hinted ? undefined : unpacedHint(progress, seconds);
    if (text === undefined) return;
    hinted = true;
    clear();
    sink.line(text);
  };
  return {
    begin() {
      if (!sink.tty) return;
      const text = 'counting what will go…';
      sink.write(`\r${text}`);
      drawn = text.length;
    },
    report(progress) {
      if (progress.transactions === 0) {
        startedAt = lineAt = now();
        clear();
        hint(progress, secondsLeft(progress, 0));
        return;
      }
      const at = now();
      const seconds = secondsLeft(progress, at - startedAt);
      hint(progress, seconds);
      const percent = Math.floor(shareDone(progress) * 100);
      const remaining = left(seconds);
      const kinds = PRUNE_TARGETS.filter((target) => progress.expected[target] > 0 || progress.done[target] > 0);
      if (sink.tty) {
        // One table, the one being pruned, so the line fits a terminal and redraws in place.
        const current =
          kinds.find((target) => target !== 'delivery_attempts' && progress.done[target] < progress.expected[target]) ??
          kinds.at(-1);
        const text = `pruning ${percent}% · ${remaining}${current === undefined ? '' : ` · ${rowsOf(progress, current)}`}`;
        sink.write(`\r${text.padEnd(drawn)}`);
        drawn = text.length;
        return;
      }
      if (Math.floor(percent / 10) <= tenth && at - lineAt < LINE_EVERY_MS) return;
      tenth = Math.floor(percent / 10);
      lineAt = at;
      sink.line(
        `pruning: ${percent}% done, ${remaining}; removed so far: ${kinds.map((target) => rowsOf(progress, target)).join(', ')}`,
      );
    },
    end: clear,
  };
}
