/**
 * `shelfmark prune`'s progress on stderr, from the progress a prune reports (src/retention/progress.ts,
 * src/cli/prune-progress.ts), with a clock the test moves: the hint of a long paced prune, a line per
 * tenth of the work and at least every 30 s in a pipe, one redrawn line on a terminal, nothing for an
 * unpaced or short prune. No database: the figures are those a prune would report.
 */
import { describe, expect, it } from 'vitest';
import { duration } from '../../src/cli/progress.js';
import { pruneWatch, unpacedHint } from '../../src/cli/prune-progress.js';
import { PRUNE_TARGETS, type PruneTarget } from '../../src/retention/policy.js';
import {
  type PrunePacing,
  type PruneProgress,
  secondsLeft,
  shareDone,
  transactionsLeft,
} from '../../src/retention/progress.js';

const PACED: PrunePacing = { paced: true, pauseMs: 100, batchSize: 1000, deleteChunk: 100 };
const UNPACED: PrunePacing = { paced: false, pauseMs: 0, batchSize: 1000, deleteChunk: 1000 };

const rows = (some: Partial<Record<PruneTarget, number>>): Record<PruneTarget, number> =>
  Object.fromEntries(PRUNE_TARGETS.map((target) => [target, some[target] ?? 0])) as Record<PruneTarget, number>;

/** The history of docs/operating/retention.md: a million deliveries, what the defaults remove. */
const EXPECTED = rows({ deliveries: 826_674, delivery_attempts: 866_678, events: 50_001, response_bodies: 171_334 });
const progress = (
  transactions: number,
  done: Partial<Record<PruneTarget, number>> = {},
  pacing = PACED,
  expected = EXPECTED,
): PruneProgress => ({ expected, done: rows(done), transactions, pacing });

/** A watch whose output and clock the test holds. */
function watched(tty: boolean) {
  let clock = 0;
  const out: string[] = [];
  const watch = pruneWatch(
    { tty, write: (text) => out.push(text), line: (line) => out.push(`${line}\n`) },
    () => clock,
  );
  return { watch, out, at: (ms: number) => (clock = ms) };
}

describe('prune progress', () => {
  it('counts the work in transactions: 100 deliveries with their attempts, or a batch of anything else', () => {
    const start = progress(0);
    // 8,267 of deliveries, 51 of events, 172 of response bodies; attempts go with their deliveries.
    expect(transactionsLeft(start)).toBe(8490);
    expect(shareDone(start)).toBe(0);
    // Before the first, a paced prune takes at least its pauses; an unpaced one is not known yet.
    expect(secondsLeft(start, 0)).toBe(849);
    expect(secondsLeft(progress(0, {}, UNPACED), 0)).toBeUndefined();
    // Then the transactions left at the pace so far.
    const tenth = progress(849, { deliveries: 84_900, delivery_attempts: 89_000 });
    expect(shareDone(tenth)).toBe(0.1);
    expect(secondsLeft(tenth, 90_000)).toBe(810);
    expect(transactionsLeft(progress(9000, EXPECTED))).toBe(0);
    expect([59.2, 60, 61, 3599.5, 3600, 7_500].map(duration)).toEqual([
      '1m00s',
      '1m00s',
      '1m01s',
      '1h00m',
      '1h00m',
      '2h05m',
    ]);
  });

  it('a paced prune expected to take a minute or more says how to run it unpaced; a short or unpaced one does not', () => {
    const unpaced =
      'in a maintenance window, `npx shelfmark prune --unpaced` removes them in back-to-back batches ' +
      "(the service's writes then wait behind each batch)";
    // At the start, the least the pauses take.
    const start = progress(0);
    expect(unpacedHint(start, secondsLeft(start, 0))).toBe(
      'paced like the background pruner: 1,914,687 rows to go in about 8,490 transactions, each followed by a pause ' +
        `of 100 ms (PRUNE_PAUSE_MS) or 100 times its own length: at least 14m09s\n${unpaced}`,
    );
    // 600 transactions of 100 ms: a minute, just.
    const minute = progress(0, {}, PACED, rows({ deliveries: 60_000 }));
    expect(unpacedHint(minute, secondsLeft(minute, 0))?.split('\n')[0]).toBe(
      'paced like the background pruner: 60,000 rows to go in about 600 transactions, each followed by a pause ' +
        'of 100 ms (PRUNE_PAUSE_MS) or 100 times its own length: at least 1m00s',
    );
    const short = progress(0, {}, PACED, rows({ deliveries: 59_900 }));
    expect(unpacedHint(short, secondsLeft(short, 0))).toBeUndefined();
    // Later, at the pace so far: 10 of 599 transactions took 20 s.
    const slow = progress(10, { deliveries: 1000 }, PACED, rows({ deliveries: 59_900 }));
    expect(unpacedHint(slow, secondsLeft(slow, 20_000))).toBe(
      'paced like the background pruner: 58,900 rows to go in about 589 transactions, each followed by a pause ' +
        `of 100 ms (PRUNE_PAUSE_MS) or 100 times its own length: about 19m38s at the pace so far\n${unpaced}`,
    );
    expect(unpacedHint(progress(0, {}, UNPACED), undefined)).toBeUndefined();
    expect(unpacedHint(progress(10, {}, UNPACED), 3600)).toBeUndefined();
  });

  it('a paced prune whose pace turns out slow says so at its first line, once', () => {
    const { watch, out, at } = watched(false);
    const expected = rows({ deliveries: 10_000, delivery_attempts: 10_000 });
    watch.report(progress(0, {}, PACED, expected));
    expect(out).toEqual([]);
    at(20_000);
    watch.report(progress(10, { deliveries: 1000, delivery_attempts: 1000 }, PACED, expected));
    at(40_000);
    watch.report(progress(20, { deliveries: 2000, delivery_attempts: 2000 }, PACED, expected));
    expect(out).toEqual([
      'paced like the background pruner: 18,000 rows to go in about 90 transactions, each followed by a pause of ' +
        '100 ms (PRUNE_PAUSE_MS) or 100 times its own length: about 3m00s at the pace so far\n' +
        'in a maintenance window, `npx shelfmark prune --unpaced` removes them in back-to-back batches ' +
        "(the service's writes then wait behind each batch)\n",
      'pruning: 10% done, about 3m00s left; removed so far: deliveries 1,000 of 10,000, delivery_attempts 1,000 of 10,000\n',
      'pruning: 20% done, about 2m40s left; removed so far: deliveries 2,000 of 10,000, delivery_attempts 2,000 of 10,000\n',
    ]);
  });

  it('in a pipe: the hint, then a line at every tenth of the work and at least every 30 s, with the rows per table', () => {
    const { watch, out, at } = watched(false);
    watch.report(progress(0));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^paced like the background pruner: 1,914,687 rows to go/);
    at(30_000);
    watch.report(progress(300, { deliveries: 30_000, delivery_attempts: 31_000 }));
    at(90_000);
    watch.report(progress(849, { deliveries: 84_900, delivery_attempts: 89_000 }));
    at(125_000);
    watch.report(progress(900, { deliveries: 90_000, delivery_attempts: 94_000 }));
    at(130_000);
    watch.report(progress(950, { deliveries: 95_000, delivery_attempts: 99_000 }));
    watch.end();
    expect(out.slice(1)).toEqual([
      // 30 s after the start: the first line although the first tenth is not done.
      'pruning: 3% done, about 13m39s left; removed so far: deliveries 30,000 of 826,674, delivery_attempts 31,000 of ' +
        '866,678, events 0 of 50,001, response_bodies 0 of 171,334\n',
      'pruning: 10% done, about 13m30s left; removed so far: deliveries 84,900 of 826,674, delivery_attempts 89,000 of ' +
        '866,678, events 0 of 50,001, response_bodies 0 of 171,334\n',
      // 35 s since the last line.
      'pruning: 10% done, about 17m35s left; removed so far: deliveries 90,000 of 826,674, delivery_attempts 94,000 of ' +
        '866,678, events 0 of 50,001, response_bodies 0 of 171,334\n',
    ]);
  });

  it('on a terminal: the count said, then one line redrawn with the table being pruned, cleared at the end; unpaced, no hint', () => {
    const { watch, out, at } = watched(true);
    watch.begin();
    watch.report(progress(0, {}, UNPACED));
    at(10_000);
    watch.report(progress(200, { deliveries: 200_000, delivery_attempts: 210_000 }, UNPACED));
    at(50_000);
    watch.report(progress(900, EXPECTED, UNPACED, rows({ ...EXPECTED, audit_records: 2000 })));
    watch.end();
    // 200 transactions in 10 s, 850 left (627 of deliveries, 51 of events, 172 of bodies): 19 %, 43 s.
    const first = '\rpruning 19% · about 43s left · deliveries 200,000 of 826,674';
    const second = '\rpruning 99% · under 1s left · audit_records 0 of 2,000';
    const counting = '\rcounting what will go…';
    expect(out).toEqual([
      counting,
      `\r${' '.repeat(counting.length - 1)}\r`,
      first,
      second.padEnd(first.length),
      `\r${' '.repeat(second.length - 1)}\r`,
    ]);
  });

  it('a prune that fits in one transaction per table reports only its start, and writes nothing', () => {
    const { watch, out } = watched(false);
    watch.begin();
    watch.report(progress(0, {}, PACED, rows({ deliveries: 2, delivery_attempts: 4, events: 1 })));
    watch.end();
    expect(out).toEqual([]);
  });
});
