import { afterEach, beforeEach } from 'vitest';
import { runCli } from '../../src/main/cli.js';
import type { Harness } from './harness.js';

export interface Captured {
  code: number | 'running';
  stdout: string;
  stderr: string;
}

/**
 * `shelfmark <args>` in-process through runCli, its output captured; `tty`: whether stdout and stderr
 * are terminals; `run`: another build's runCli (the compiled one), the source's by default.
 */
export async function cli(args: string[], tty = false, run: typeof runCli = runCli): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    out: (line) => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
    errWrite: (text) => (stderr += text),
    outTty: tty,
    errTty: tty,
  });
  return { code, stdout, stderr };
}

/**
 * Points the environment the CLI reads at the harness's database (quiet logs, no demo seed, this admin
 * token, and `extra`); the function returned puts the previous environment back.
 */
export function cliEnvironment(h: Harness, adminToken: string, extra: Record<string, string> = {}): () => void {
  const saved = { ...process.env };
  Object.assign(
    process.env,
    { DATABASE_URL: h.database.url, LOG_LEVEL: 'silent', SEED: 'none', ADMIN_TOKEN: adminToken },
    extra,
  );
  return () => {
    process.env = saved;
  };
}

/**
 * cliEnvironment for each test of the calling block, pointed at its harness `h` (from useHarness or
 * useSharedHarness, registered first so that it exists by then) and put back after the test.
 */
export function useCliEnvironment(h: Harness, adminToken: string, extra: Record<string, string> = {}): void {
  let restore: (() => void) | undefined;
  beforeEach(() => {
    restore = cliEnvironment(h, adminToken, extra);
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });
}
