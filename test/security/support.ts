/**
 * The security suite's instances: like test/support/harness.ts, but every instance logs (at trace, the
 * most verbose level) into one capture, so the suite can assert at the end that no secret it handled
 * ever appeared in any log line.
 */
import { PassThrough } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { testConfig, type Config } from '../../src/config.js';
import type { Engine } from '../../src/db/database.js';
import type { LookupFn } from '../../src/delivery/ssrf.js';
import { freshDatabase } from '../support/engines.js';
import { ADMIN_TOKEN, type Harness } from '../support/harness.js';

/** Every log line written by any instance of the suite. */
export const capturedLogLines: string[] = [];
/** Every secret the suite saw (client secrets, webhook secrets, bearer tokens, admin tokens, links). */
export const secretsSeen = new Set<string>([ADMIN_TOKEN]);

export function rememberSecrets(...values: (string | undefined)[]): void {
  for (const value of values) if (value !== undefined && value.length >= 8) secretsSeen.add(value);
}

export async function securityHarness(engine: Engine, overrides: Partial<Config> = {}, dnsLookup?: LookupFn): Promise<Harness> {
  const database = await freshDatabase(engine);
  const clock = new ManualClock(Date.UTC(2026, 8, 1, 8, 0, 0));
  const config = testConfig({ adminToken: ADMIN_TOKEN, logLevel: 'trace', ...overrides });
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => capturedLogLines.push(...chunk.toString().split('\n').filter((line) => line !== '')));
  const app = await buildApp({ config, db: database.db, clock, ...(dnsLookup === undefined ? {} : { dnsLookup }) }, { logStream: stream });
  await app.ready();
  return {
    app,
    clock,
    config,
    database,
    admin: { authorization: `Bearer ${ADMIN_TOKEN}` },
    listen: async () => {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no address');
      return `http://127.0.0.1:${address.port}`;
    },
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}
