/**
 * The security suite's instances: like test/support/harness.ts, but every instance logs (at trace, the
 * most verbose level) into one capture, so the suite can assert at the end that no secret it handled
 * ever appeared in any log line.
 */
import type { Config } from '../../src/config.js';
import type { Engine } from '../../src/db/database.js';
import type { LookupFn } from '../../src/delivery/ssrf.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../support/harness.js';
import { logLines } from '../support/log-lines.js';

/** Every log line written by any instance of the suite. */
export const capturedLogLines: string[] = [];
/** Every secret the suite saw (client secrets, webhook secrets, bearer tokens, admin tokens, links). */
export const secretsSeen = new Set<string>([ADMIN_TOKEN]);

export function rememberSecrets(...values: (string | undefined)[]): void {
  for (const value of values) if (value !== undefined && value.length >= 8) secretsSeen.add(value);
}

export async function securityHarness(
  engine: Engine,
  overrides: Partial<Config> = {},
  dnsLookup?: LookupFn,
): Promise<Harness> {
  return createHarness(
    engine,
    { logLevel: 'trace', ...overrides },
    { logStream: logLines(capturedLogLines), ...(dnsLookup === undefined ? {} : { deps: { dnsLookup } }) },
  );
}
