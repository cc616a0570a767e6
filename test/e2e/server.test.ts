/**
 * The service as a user starts it: the compiled server in a child process, a fresh SQLite file, no
 * ADMIN_TOKEN. Then the README's "Try it" commands are run verbatim (only the origin is replaced by
 * the test server's) so the README cannot drift from the product.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../../src/seed/demo.js';
import { ensureBuilt } from '../support/process.js';
import { readmeScript } from '../support/readme.js';

const root = join(import.meta.dirname, '..', '..');

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: string[];
  url: string;
}

function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [join(root, 'dist', 'main', 'server.js')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
  });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output.join('')}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = /listening on (http:\/\/[^\s]+)/.exec(output.join(''));
      if (match?.[1] !== undefined && output.join('').includes('API reference')) {
        clearTimeout(timer);
        resolve({ child, output, url: match[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output.join('')}`));
    });
  });
}

function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.removeAllListeners('exit');
    started.child.on('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });
}

describe('the server process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shelfmark-e2e-'));
  const databaseUrl = `sqlite:${join(dataDir, 'shelfmark.sqlite')}`;
  let first: Started;

  // Built afresh when a source file is newer than the build: the banner checked is the source's.
  beforeAll(async () => {
    ensureBuilt();
    first = await start({ DATABASE_URL: databaseUrl });
  }, 240_000);
  afterAll(async () => {
    if (first.child.exitCode === null) await stop(first);
  });

  it('prints the URL, a generated admin token and the demo credentials on first start', () => {
    const text = first.output.join('');
    expect(text).toMatch(
      /Admin token \(generated on first start, shown once; set ADMIN_TOKEN to choose your own\): sma_[0-9A-Za-z]{43}/,
    );
    // The webhook secret beside the client's credentials: what a receiver of its webhooks verifies them with.
    expect(text).toContain(
      'Demo client: clientId=smc_demo clientSecret=sms_demo_secret_do_not_use_in_production webhookSecret=whsec_c2hlbGZtYXJrLWRlbW8td2ViaG9vay1rZXktMzJieXQ=\n',
    );
    expect(text).toContain(`webhookSecret=${DEMO_CLIENT.webhookSecret}\n`);
    expect(text).toMatch(/Demo data seeded: 25 offers, \d+ schools, \d+ lists\./);
  });

  it('the generated admin token works for the admin API', async () => {
    const token = /Admin token [^:]+: (sma_[0-9A-Za-z]{43})/.exec(first.output.join(''))?.[1] ?? '';
    const ok = await fetch(`${first.url}/api/admin/v1/clients`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { data: { clientId: string }[] };
    expect(body.data.map((client) => client.clientId)).toEqual(['smc_demo']);
    expect(
      (await fetch(`${first.url}/api/admin/v1/clients`, { headers: { authorization: 'Bearer sma_wrong' } })).status,
    ).toBe(401);
  });

  it("runs the README's curl examples verbatim", () => {
    const shell = readmeScript(first.url);
    const out = execFileSync('bash', ['-euo', 'pipefail', '-c', shell], { encoding: 'utf8', timeout: 30_000 })
      .trim()
      .split('\n');
    const responses = out.map((line) => JSON.parse(line) as unknown);
    const [tokenGet, tokenPost, offers, offersEncoded, offer, schools, lists, structure, feed, subscription, priced] =
      responses as Record<string, unknown>[];
    expect(tokenGet).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(tokenPost).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(Array.isArray(offers) && offers.length).toBe(6);
    expect(offersEncoded).toEqual(offers);
    expect(offer).toMatchObject({ id: 1, currency: 'EUR' });
    expect(schools).toMatchObject({ has_more: false });
    expect(lists).toMatchObject({ has_more: false });
    expect(Array.isArray(structure)).toBe(true);
    // The demo's seeded events, pulled: two, oldest first, and a cursor to go on from.
    expect(feed).toMatchObject({ has_more: true, next: expect.any(String) });
    expect(feed?.data).toHaveLength(2);
    // The demo server refuses the example's unresolvable receiver host with a clear 422 problem.
    expect(subscription).toMatchObject({ status: 422, code: 'unresolvable-host' });
    // The demo list priced in one call: one optional item has no offer, the totals are exact.
    expect(priced).toMatchObject({
      list: { name: 'vwo 4', status: 'published' },
      summary: { items: 4, itemsWithOffers: 3, mandatoryItems: 3, mandatoryItemsWithOffers: 3, currency: 'EUR' },
    });
    expect(responses).toHaveLength(11);
  });

  it('stops cleanly on SIGTERM and does not seed or print a token again on restart', async () => {
    expect(await stop(first)).toBe(0);
    const second = await start({ DATABASE_URL: databaseUrl });
    try {
      const text = second.output.join('');
      expect(text).not.toContain('Admin token');
      expect(text).not.toContain('Demo data seeded');
      const token = await fetch(`${second.url}/api/auth/token`, {
        headers: {
          authorization: `Basic ${Buffer.from('smc_demo:sms_demo_secret_do_not_use_in_production').toString('base64')}`,
        },
      });
      expect(token.status).toBe(200);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  });

  it('a bad configuration value stops the process naming the variable', () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [join(root, 'dist', 'main', 'server.js')], {
        env: { PATH: process.env.PATH ?? '', PORT: 'eighty' },
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toContain('configuration error: PORT: expected a whole number, got "eighty"');
  });
});
