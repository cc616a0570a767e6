/**
 * The OpenAPI document passes Redocly's `recommended` ruleset and Spectral's `spectral:oas` with zero
 * errors. Both run locally: Spectral through its library with the ruleset from node_modules, Redocly
 * as its CLI with telemetry and the update check switched off, so nothing is downloaded. The document
 * is built from the route schemas and does not depend on the database engine, so this runs once
 * (SQLite); the response-validation test runs on both engines.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Document, Spectral } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.js';

const run = promisify(execFile);

/** Warnings kept on purpose, each justified in docs/integrating.md (the OpenAPI item). */
const ACCEPTED_WARNINGS: Readonly<Record<string, number>> = {
  // Redocly: /healthz, /readyz, /metrics and the two discovery documents answer no 4xx at all.
  'operation-4xx-response': 5,
  // Spectral: operations whose summary says everything carry no separate description.
  'operation-description': 40,
};

describe('OpenAPI linters', () => {
  let h: Harness;
  let text: string;
  let dir: string;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    text = (await h.anonymous().get('/openapi.json')).body;
    dir = mkdtempSync(join(tmpdir(), 'shelfmark-openapi-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  it('Spectral spectral:oas: no errors, only the accepted warnings', async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas, 'recommended']] } as unknown as Parameters<Spectral['setRuleset']>[0]);
    const results = await spectral.run(new Document(text, parsers.Json, 'openapi.json'));
    const errors = results
      .filter((result) => result.severity === 0)
      .map((result) => `${result.code}: ${result.message} at ${result.path.join('.')}`);
    expect(errors).toEqual([]);
    const warnings = results.filter((result) => result.severity === 1);
    const unexpected = warnings
      .filter((result) => ACCEPTED_WARNINGS[String(result.code)] === undefined)
      .map((result) => `${result.code} at ${result.path.join('.')}`);
    expect(unexpected).toEqual([]);
    expect(warnings.length).toBeLessThanOrEqual(ACCEPTED_WARNINGS['operation-description'] ?? 0);
  }, 60_000);

  it('Redocly recommended: no errors, only the accepted warnings', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, text);
    const cli = join(process.cwd(), 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const env = {
      ...process.env,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      CI: 'true',
      NO_COLOR: '1',
    };
    // Exit code 1 means "problems found": the JSON report says which.
    const output = await run(process.execPath, [cli, 'lint', file, '--extends', 'recommended', '--format', 'json'], {
      env,
      cwd: dir,
      timeout: 60_000,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(output.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ''}`);
    expect(errors).toEqual([]);
    const unexpected = report.problems
      .filter((problem) => problem.severity !== 'error' && ACCEPTED_WARNINGS[problem.ruleId] === undefined)
      .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer ?? ''}`);
    expect(unexpected).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.totals.warnings).toBeLessThanOrEqual(ACCEPTED_WARNINGS['operation-4xx-response'] ?? 0);
  }, 60_000);
});
