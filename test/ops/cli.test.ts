import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_STATE_TTL_MS } from '../../src/auth/client-states.js';
import { testConfig } from '../../src/config.js';
import type * as CliModule from '../../src/main/cli.js';
import { createServices } from '../../src/main/services.js';
import { cli as inProcess } from '../support/cli.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createHarness, type Harness } from '../support/harness.js';
import { ensureBuilt, ROOT } from '../support/process.js';

const run = promisify(execFile);
const BIN = join(ROOT, 'bin/shelfmark.js');

/**
 * The CLI under test is the compiled one that `npx shelfmark` runs (dist/, rebuilt first if a source
 * is newer). What crosses the process boundary (the bin script, the exit codes it hands the shell,
 * `serve` and its signals) runs as a process of its own; the other commands run the compiled runCli
 * in this process, with the environment and the output a process of its own would have.
 */
let compiled: Promise<typeof CliModule> | undefined;
const compiledCli = (): Promise<typeof CliModule> =>
  (compiled ??= import(pathToFileURL(join(ROOT, 'dist/main/cli.js')).href) as Promise<typeof CliModule>);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

describeEachEngine('shelfmark CLI', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    ensureBuilt();
    await compiledCli();
    h = await createHarness(engine, {}, { file: true });
  }, 120_000);
  afterAll(async () => h.close());

  /** The environment a command gets: this process's, without its ADMIN_TOKEN, pointed at the harness's database. */
  const environment = (env: Record<string, string>): NodeJS.ProcessEnv => {
    const { ADMIN_TOKEN: _ignored, ...inherited } = process.env;
    return { ...inherited, DATABASE_URL: h.database.url, LOG_LEVEL: 'silent', SEED: 'none', ...env };
  };
  /** `node bin/shelfmark.js <args>` as a process of its own. */
  const cli = async (args: string[], env: Record<string, string> = {}, bin = BIN): Promise<Result> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
        env: environment(env),
        timeout: 30_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return {
        code: typeof failed.code === 'number' ? failed.code : -1,
        stdout: failed.stdout ?? '',
        stderr: failed.stderr ?? '',
      };
    }
  };
  /**
   * The compiled runCli in this process, under the same environment, its stdout and stderr captured.
   * One at a time: it swaps process.env while it runs.
   */
  const command = async (args: string[], env: Record<string, string> = {}): Promise<Result> => {
    const { runCli } = await compiledCli();
    const saved = process.env;
    process.env = environment(env);
    try {
      const { code, stdout, stderr } = await inProcess(args, false, runCli);
      return { code: code === 'running' ? -1 : code, stdout, stderr };
    } finally {
      process.env = saved;
    }
  };
  const token = (id: string, secret: string) =>
    h.anonymous().get('/api/auth/token', { headers: { authorization: basic(id, secret) } });

  it('prints usage and exits 2 on bad usage, 0 on --help', async () => {
    // The shell sees 2 and 0 from the bin script; the misuses' words come from runCli in this process.
    const spawned = Promise.all([cli([]), cli(['--help'])]);
    const unknown = await command(['frobnicate']);
    const badOption = await command(['clients', 'list', '--bogus']);
    const missingId = await command(['clients', 'reset-secret']);
    const badRole = await command(['serve', '--role', 'everything']);
    const [none, help] = await spawned;
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('Usage: shelfmark <command>');
    expect(help.code).toBe(0);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(badOption.code).toBe(2);
    expect(missingId.code).toBe(2);
    expect(missingId.stderr).toContain('missing client id');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('--role');
  });

  it('stops with exit 2 naming the variable on bad configuration', async () => {
    const result = await command(['clients', 'list'], { DATABASE_URL: 'mysql://nope' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL');
  });

  it('migrate is idempotent', async () => {
    const result = await command(['migrate']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`database migrated (${engine})`);
  });

  it('manages clients through the same services as the API', async () => {
    const created = await command(['clients', 'create', 'CLI', 'shop', '--scopes', 'offers:read']);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('shown only now');
    const client = JSON.parse(created.stdout) as {
      id: string;
      clientId: string;
      clientSecret: string;
      webhookSecret: string;
      name: string;
      scopes: string[];
    };
    expect(client).toMatchObject({ name: 'CLI shop', scopes: ['offers:read'] });
    expect(client.webhookSecret).toMatch(/^whsec_/);
    expect((await token(client.clientId, client.clientSecret)).statusCode).toBe(200);

    const listed = JSON.parse((await command(['clients', 'list'])).stdout) as { id: string; clientSecret?: string }[];
    expect(listed.map((entry) => entry.id)).toContain(client.id);
    expect(listed.every((entry) => entry.clientSecret === undefined)).toBe(true);

    const reset = await command(['clients', 'reset-secret', client.id]);
    expect(reset.code).toBe(0);
    const { clientSecret } = JSON.parse(reset.stdout) as { clientSecret: string };
    // The CLI is another process: the API node reads the client again within CLIENT_STATE_TTL_MS.
    h.clock.advance(CLIENT_STATE_TTL_MS);
    expect((await token(client.clientId, client.clientSecret)).statusCode).toBe(401);
    expect((await token(client.clientId, clientSecret)).statusCode).toBe(200);

    const rotated = JSON.parse((await command(['clients', 'rotate-webhook-secret', client.id])).stdout) as {
      webhookSecret: string;
    };
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(client.webhookSecret);

    const revoked = await command(['clients', 'revoke', client.id]);
    expect(revoked.code).toBe(0);
    h.clock.advance(CLIENT_STATE_TTL_MS);
    expect((await token(client.clientId, clientSecret)).statusCode).toBe(401);
  });

  it('exits 1 with the problem title when the operation fails', async () => {
    const result = await cli(['clients', 'revoke', 'cli_doesnotexist0000000000']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: Resource not found');
    expect(result.stderr).not.toMatch(/\bat .+\.(js|ts):\d+/);
  });

  it('admin-token --reset replaces the stored token, unless ADMIN_TOKEN is configured', async () => {
    const result = await command(['admin-token', '--reset']);
    expect(result.code).toBe(0);
    const newToken = result.stdout.trim();
    expect(newToken).toMatch(/^sma_[0-9A-Za-z]{43}$/);
    const services = await createServices({
      config: testConfig({ adminToken: undefined }),
      db: h.database.db,
      clock: h.clock,
    });
    expect(services.adminAuth.verify(newToken)).toBe(true);
    expect(services.generatedAdminToken).toBeUndefined();

    const pinned = await command(['admin-token', '--reset'], { ADMIN_TOKEN: 'configured-admin-token-123456' });
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain('ADMIN_TOKEN is set');
    expect((await command(['admin-token'])).code).toBe(2);
  });

  it('seed does nothing on a database that already has clients', async () => {
    const result = await command(['seed']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ seeded: false });
  });

  it('lists and retries deliveries', async () => {
    const listed = await command(['deliveries', 'list', '--status', 'failed', '--limit', '5']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({ has_more: false, data: [] });
    expect((await command(['deliveries', 'list', '--limit', 'many'])).code).toBe(2);
    const retry = await command(['deliveries', 'retry', 'dlv_doesnotexist000000000']);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toContain('not found');
  });

  it('serve starts the compiled server with process metrics, docs and dashboard, and stops cleanly on SIGTERM', async () => {
    const { ADMIN_TOKEN: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [BIN, 'serve', '--role', 'api'], {
      env: {
        ...inherited,
        DATABASE_URL: h.database.url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        SEED: 'none',
        ADMIN_TOKEN: 'serve-test-admin-token-0123',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const base = await new Promise<string>((resolveBase, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/[^\s]+) \(role api/.exec(output);
          if (match?.[1] !== undefined) {
            clearTimeout(timer);
            resolveBase(match[1]);
          }
        });
        child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
      });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('shelfmark_process_cpu_user_seconds_total');
      // Bodies are read to the end: an unread response keeps its connection busy and delays shutdown.
      for (const path of ['/dashboard/app.js', '/docs/static/swagger-ui-bundle.js']) {
        const asset = await fetch(`${base}${path}`);
        expect(asset.status, path).toBe(200);
        expect((await asset.text()).length).toBeGreaterThan(1000);
      }
      expect(((await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string }).openapi).toBe('3.1.0');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('the bin script explains what to do when the build is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shelfmark-bin-'));
    const lonely = join(dir, 'bin', 'shelfmark.js');
    await run('mkdir', ['-p', join(dir, 'bin')]);
    copyFileSync(BIN, lonely);
    const result = await cli(['clients', 'list'], {}, lonely);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run npm run build first');
  });
});
