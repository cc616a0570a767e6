import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { figuresTable, SCENARIO_ORDER, withFiguresTable } from '../../bench/lib/figures.js';
import { recordWanted } from '../../bench/lib/record.js';

const ROOT = join(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'bench', 'results');
const PAGE = join(ROOT, 'docs', 'performance.md');

describe('the recorded bench figures', () => {
  it('the table in docs/performance.md is the one the recorded results render (npm run docs:bench)', () => {
    const text = readFileSync(PAGE, 'utf8');
    expect(withFiguresTable(text, RESULTS), 'run npm run docs:bench').toBe(text);
  });

  it('bench/results holds one file per scenario, named after it, and nothing else', () => {
    const files = readdirSync(RESULTS);
    for (const file of files) expect(SCENARIO_ORDER as readonly string[]).toContain(file.replace(/\.json$/, ''));
    for (const file of files)
      expect(JSON.parse(readFileSync(join(RESULTS, file), 'utf8')).scenario).toBe(file.slice(0, -5));
  });

  it('gives every recorded target a line, with its scenario file', () => {
    const lines = figuresTable(RESULTS).split('\n').slice(2);
    const targets = readdirSync(RESULTS).flatMap(
      (file) => (JSON.parse(readFileSync(join(RESULTS, file), 'utf8')) as { targets: unknown[] }).targets,
    );
    expect(lines).toHaveLength(targets.length);
    for (const line of lines) expect(line).toMatch(/^\| \[[a-z-]+\]\(\.\.\/bench\/results\/[a-z-]+\.json\)/);
  });

  it('records only when asked: --record or BENCH_RECORD', () => {
    expect(recordWanted([], {})).toBe(false);
    expect(recordWanted(['--only', 'offers'], { BENCH_RECORD: '0' })).toBe(false);
    expect(recordWanted(['--record'], {})).toBe(true);
    expect(recordWanted([], { BENCH_RECORD: '1' })).toBe(true);
  });
});
