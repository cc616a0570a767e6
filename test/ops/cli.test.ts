import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_STATE_TTL_MS } from '../../src/auth/client-states.js';
import { testConfig } from '../../src/config.js';
import { createServices } from '../../src/main/services.js';
import { describeEachEngine } from '../support/engines.js';
import { basic, createHarness, type Harness } from '../support/harness.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/shelfmark.js');

// One build for the whole file: the CLI under test is the compiled one that `npx shelfmark` runs.
let built: Promise<void> | undefined;
const build = (): Promise<void> =>
  (built ??= run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
  }).then(
    () => undefined,
    (error: { stdout?: string; message: string }) => {
      throw new Error(`npm run build failed, so the CLI cannot be tested:\n${error.stdout ?? error.message}`);
    },
  ));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

describeEachEngine('shelfmark CLI', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    await build();
    h = await createHarness(engine, {}, { file: true });
  }, 120_000);
  afterAll(async () => h.close());

  const cli = async (args: string[], env: Record<string, string> = {}, bin = BIN): Promise<Result> => {
    const { ADMIN_TOKEN: _ignored, ...inherited } = process.env;
    try {
      const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
        env: { ...inherited, DATABASE_URL: h.database.url, LOG_LEVEL: 'silent', SEED: 'none', ...env },
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
  const token = (id: string, secret: string) =>
    h.anonymous().get('/api/auth/token', { headers: { authorization: basic(id, secret) } });

  it('prints usage and exits 2 on bad usage, 0 on --help', async () => {
    const [none, help, unknown, badOption, missingId, badRole] = await Promise.all([
      cli([]),
      cli(['--help']),
      cli(['frobnicate']),
      cli(['clients', 'list', '--bogus']),
      cli(['clients', 'reset-secret']),
      cli(['serve', '--role', 'everything']),
    ]);
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
    const result = await cli(['clients', 'list'], { DATABASE_URL: 'mysql://nope' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL');
  });

  it('migrate is idempotent', async () => {
    const result = await cli(['migrate']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`database migrated (${engine})`);
  });

  it('manages clients through the same services as the API', async () => {
    const created = await cli(['clients', 'create', 'CLI', 'shop', '--scopes', 'offers:read']);
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

    const listed = JSON.parse((await cli(['clients', 'list'])).stdout) as { id: string; clientSecret?: string }[];
    expect(listed.map((entry) => entry.id)).toContain(client.id);
    expect(listed.every((entry) => entry.clientSecret === undefined)).toBe(true);

    const reset = await cli(['clients', 'reset-secret', client.id]);
    expect(reset.code).toBe(0);
    const { clientSecret } = JSON.parse(reset.stdout) as { clientSecret: string };
    // The CLI is another process: the API node reads the client again within CLIENT_STATE_TTL_MS.
    h.clock.advance(CLIENT_STATE_TTL_MS);
    expect((await token(client.clientId, client.clientSecret)).statusCode).toBe(401);
    expect((await token(client.clientId, clientSecret)).statusCode).toBe(200);

    const rotated = JSON.parse((await cli(['clients', 'rotate-webhook-secret', client.id])).stdout) as {
      webhookSecret: string;
    };
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(client.webhookSecret);

    const revoked = await cli(['clients', 'revoke', client.id]);
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
    const result = await cli(['admin-token', '--reset']);
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

    const pinned = await cli(['admin-token', '--reset'], { ADMIN_TOKEN: 'configured-admin-token-123456' });
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain('ADMIN_TOKEN is set');
    expect((await cli(['admin-token'])).code).toBe(2);
  });

  it('seed does nothing on a database that already has clients', async () => {
    const result = await cli(['seed']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ seeded: false });
  });

  it('lists and retries deliveries', async () => {
    const listed = await cli(['deliveries', 'list', '--status', 'failed', '--limit', '5']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({ has_more: false, data: [] });
    expect((await cli(['deliveries', 'list', '--limit', 'many'])).code).toBe(2);
    const retry = await cli(['deliveries', 'retry', 'dlv_doesnotexist000000000']);
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
