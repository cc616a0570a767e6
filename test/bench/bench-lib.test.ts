/**
 * The bench's arithmetic: medians and per-round ratios, target verdicts, the chart, the arrival rate at
 * the receiver and the CPU-profile self-time sums. (The bench itself runs in CI as BENCH_QUICK=1.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  arrivalRate,
  percentile,
  type Receiver,
  type ReceiverStats,
  ratios,
  spread,
  windowRates,
} from '../../bench/lib/measure.js';
import { topSelfTime } from '../../bench/lib/profile.js';
import { cell, score, svg, targetTable } from '../../bench/lib/report.js';
import { target } from '../../bench/lib/types.js';

describe('bench statistics', () => {
  it('reports the median with min and max, odd and even counts, ignoring a failed (NaN) round', () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3, values: [3, 1, 2] });
    expect(spread([4, 1, 3, 2])).toMatchObject({ median: 2.5, min: 1, max: 4 });
    expect(spread([5, Number.NaN, 7])).toMatchObject({ median: 6, min: 5, max: 7 });
    expect(spread([]).median).toBeNaN();
  });

  it('pairs interleaved rounds: the ratio is the median of per-round ratios, not the ratio of medians', () => {
    const result = ratios([10, 30, 20], [100, 100, 50]);
    expect(result.values).toEqual([0.1, 0.3, 0.4]);
    expect(result).toMatchObject({ median: 0.3, min: 0.1, max: 0.4 });
  });

  it('takes nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it('measures the delivery rate between the first and the Nth distinct arrival, and refuses an incomplete run', () => {
    expect(arrivalRate({ count: 1001, distinct: 1001, first: 1000, nth: 2000, last: 2000 }, 1001)).toBe(1000);
    expect(arrivalRate({ count: 10, distinct: 10, first: 1000, nth: null, last: 1500 }, 11)).toBeNaN();
  });

  it('times each window of a drain between its own first and last arrival, and refuses a window not reached', async () => {
    // 100 warm-up arrivals 10 ms apart, then 1,000 a millisecond apart, then 1,000 every half millisecond.
    const times = [
      ...Array.from({ length: 100 }, (_, i) => i * 10),
      ...Array.from({ length: 1000 }, (_, i) => 1000 + i),
      ...Array.from({ length: 1000 }, (_, i) => 2000 + i / 2),
    ];
    const receiver = {
      waitFor: async (n: number, _wait: number, from = 0): Promise<ReceiverStats> => ({
        count: times.length,
        distinct: times.length,
        first: times[0] ?? null,
        nth: times[n - 1] ?? null,
        kth: from > 0 ? (times[from - 1] ?? null) : null,
        last: times.at(-1) ?? null,
      }),
    } as Pick<Receiver, 'waitFor'> as Receiver;
    // Window 1: arrivals 101..1100, from t=990 (the 100th) to t=1999; window 2: from 1999 to 2499.5.
    expect(await windowRates(receiver, { warmup: 100, size: 1000, windows: 2 })).toEqual([
      Math.round(1000 / 1.009),
      Math.round(1000 / 0.5005),
    ]);
    expect(await windowRates(receiver, { warmup: 100, size: 1000, windows: 3 })).toEqual([991, 1998, Number.NaN]);
  });
});

describe('bench targets and chart', () => {
  it('judges "at least" and "at most" targets and says by how much', () => {
    expect(target('offers', 'ratio', 42.5, 60, '%', 'atLeast')).toMatchObject({
      met: false,
      verdict: 'missed by 17.5 points',
      value: 42.5,
    });
    expect(target('offers', 'p99', 8, 10, 'ms', 'atMost')).toMatchObject({ met: true, verdict: 'met (2 ms to spare)' });
    expect(target('token', 'peer', 3.5, 3, '×', 'atLeast')).toMatchObject({
      met: true,
      verdict: 'met (0.50× to spare)',
    });
    expect(target('fanout', 'time', Number.NaN, 5000, 'ms', 'atMost')).toMatchObject({
      met: false,
      verdict: 'not measured',
    });
  });

  it('scores a target as a share of it (≥ 1 when met) and draws one bar per target with the target line', () => {
    const targets = [
      target('a', 'at least & <met>', 120, 60, '%', 'atLeast'),
      target('b', 'at most', 20, 10, 'ms', 'atMost'),
    ];
    expect(targets.map(score)).toEqual([2, 0.5]);
    const chart = svg(targets, 'machine');
    expect(chart.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(chart).toContain('at least &amp; &lt;met&gt;');
    // Bars start right of the label column: 300 px for short labels, wider for a long one.
    expect(chart.match(/<rect x="300"/g)).toHaveLength(2);
    const long = svg([target('c', 'x'.repeat(70), 1, 1, '×', 'atLeast')], 'machine');
    expect(long).toContain(`<rect x="${36 + 7 * 70}"`);
    expect(chart).toContain('fill="#2e7d32"');
    expect(chart).toContain('fill="#c62828"');
    expect(chart).toContain('>target</text>');
    expect(targetTable(targets)).toContain('| at most | 20 ms | ❌ missed by 10 ms |');
  });

  it('prints a median with its range only when there was more than one round', () => {
    expect(cell(spread([1000, 1200, 1100]), 'req/s')).toBe('1,100 (1,000–1,200)');
    expect(cell(spread([12.345]), '%')).toBe('12.35 %');
  });
});

describe('CPU profile self time', () => {
  it('sums the sample time per function, url and line, and ranks them', () => {
    const frame = (functionName: string, url: string, lineNumber: number) => ({
      functionName,
      url,
      lineNumber,
      columnNumber: 0,
      scriptId: '0',
    });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '', -1) },
        { id: 2, callFrame: frame('executeQuery', 'file:///x/node_modules/kysely/driver.js', 59) },
        { id: 3, callFrame: frame('(idle)', '', -1) },
        { id: 4, callFrame: frame('executeQuery', 'file:///x/node_modules/kysely/driver.js', 59) },
        { id: 5, callFrame: frame('', 'file:///x/dist/app.js', 9) },
      ],
      startTime: 0,
      endTime: 10_000,
      samples: [2, 3, 4, 5, 2],
      // timeDeltas[i] precedes sample i: sample i lasts timeDeltas[i + 1].
      timeDeltas: [0, 3000, 1000, 2000, 500, 0],
    };
    const file = join(mkdtempSync(join(tmpdir(), 'bench-profile-')), 'p.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const result = topSelfTime(file, 2);
    expect(result.totalMs).toBe(7);
    expect(result.idleMs).toBe(1);
    expect(result.top).toEqual([
      { function: 'executeQuery', location: 'node_modules/kysely/driver.js:60', selfMs: 5, share: 76.9 },
      { function: '(idle)', location: '', selfMs: 1, share: 15.4 },
    ]);
  });
});
