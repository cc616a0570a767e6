/**
 * PostgreSQL with one API and one worker process, as the operating docs set it up, in a
 * schema of Shelfmark's own (`?options=-c search_path=…`). The worker migrates but never seeds and
 * prints no credential or token hint; the API seeds and prints the demo client; every table lands
 * in the schema named. The server runs as operators run it: the compiled dist/main/server.js (built
 * first if a source is newer).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, TEST_DATABASE_URL } from '../support/engines.js';
import { ensureBuilt, ROOT } from '../support/process.js';
import { until } from '../support/until.js';

const required = process.env.CI === 'true' || process.env.REQUIRE_POSTGRES === 'true';

function start(url: string, role: 'api' | 'worker'): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [join(ROOT, 'dist/main/server.js'), '--role', role], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: url,
      HOST: '127.0.0.1',
      PORT: '0',
      SEED: 'demo',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

describe.skipIf(!postgresAvailable && !required)('PostgreSQL with separate roles, in a schema of its own', () => {
  const schema = `shelfmark_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    ensureBuilt();
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
  }, 120_000);
  afterAll(async () => {
    for (const child of children) await stop(child);
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });

  const tablesIn = async (name: string): Promise<string[]> =>
    (
      await admin.query<{ table_name: string }>(
        'select table_name from information_schema.tables where table_schema = $1 order by table_name',
        [name],
      )
    ).rows.map((row) => row.table_name);

  it('the worker migrates into the schema, seeds nothing and prints no credentials; the API seeds', async () => {
    const worker = start(url, 'worker');
    children.push(worker.child);
    await until(
      () => worker.output().includes('Shelfmark worker'),
      () => `the worker to start:\n${worker.output()}`,
      60_000,
    );
    // Migrated, into the schema the URL names.
    expect(await tablesIn(schema)).toEqual(
      expect.arrayContaining(['clients', 'deliveries', 'shelfmark_migrations', 'subscriptions']),
    );
    // Not seeded, and nothing a worker has no business printing.
    expect((await admin.query(`select count(*)::int as n from "${schema}".clients`)).rows[0]).toEqual({ n: 0 });
    const said = worker.output();
    for (const leak of ['smc_demo', 'sms_demo', 'clientSecret', 'Admin token', '/api/auth/token', 'worker only'])
      expect(said).not.toContain(leak);
    expect(said.trim()).toBe('Shelfmark worker (role worker, postgres)');

    const api = start(url, 'api');
    children.push(api.child);
    await until(
      () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(api.output()),
      () => `the API to start:\n${api.output()}`,
      60_000,
    );
    expect(api.output()).toContain('Demo client: clientId=smc_demo');
    expect(api.output()).toContain('Try: curl -u smc_demo:');
    const clients = await admin.query<{ client_id: string }>(`select client_id from "${schema}".clients`);
    expect(clients.rows).toEqual([{ client_id: 'smc_demo' }]);
    // The worker still said nothing more.
    expect(worker.output().trim()).toBe('Shelfmark worker (role worker, postgres)');
    await stop(api.child);
    await stop(worker.child);
  }, 120_000);
});
