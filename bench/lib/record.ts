/**
 * Where a bench run's figures go. Every run writes `bench/out/<mode>.json` (ignored by git). Asked to
 * record (`--record` or BENCH_RECORD=1, never on a quick run), it also replaces each scenario's file in
 * `bench/results/<scenario>.json`, the figures the performance page's table is generated from.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './proc.js';
import type { ScenarioResult } from './types.js';

export const OUT_DIR = join(ROOT, 'bench', 'out');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');

/** JSON with the non-finite numbers (a failed round's NaN) written as null. */
export function resultText(value: unknown): string {
  return `${JSON.stringify(
    value,
    (_key, item: unknown) => (typeof item === 'number' && !Number.isFinite(item) ? null : item),
    2,
  )}\n`;
}

export function recordWanted(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return argv.includes('--record') || ['1', 'true', 'yes'].includes((env.BENCH_RECORD ?? '').toLowerCase());
}

/** The whole run, for reading afterwards; never part of the repository. */
export function writeRun(name: string, result: Record<string, unknown>): string {
  mkdirSync(OUT_DIR, { recursive: true });
  const file = join(OUT_DIR, `${name}.json`);
  writeFileSync(file, resultText(result));
  return file;
}

/** One scenario's figures with what they were measured with, replacing that scenario's recorded file. */
export function recordScenario(scenario: string, result: ScenarioResult, context: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${scenario}.json`);
  writeFileSync(file, resultText({ scenario, ...context, ...result }));
  return file;
}
