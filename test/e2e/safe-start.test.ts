/**
 * A safe default start, as an operator starts the server (`npm start`: the compiled dist/main/server.js,
 * built first if a source is newer): a default start binds loopback; bound to 0.0.0.0 the demo client's published secret is
 * refused, though the request comes in on 127.0.0.1 (the refusal follows the bind, not the caller), and
 * DEMO_CLIENT_PUBLIC=true accepts it with one warning line. Every request goes to 127.0.0.1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../../src/seed/demo.js';
import { basic } from '../support/harness.js';
import { ensureBuilt, ROOT } from '../support/process.js';
import { until } from '../support/until.js';

const WARNING = 'DEMO_CLIENT_PUBLIC=true';

describe('a safe default start', () => {
  const children: ChildProcess[] = [];
  beforeAll(() => ensureBuilt(), 120_000);
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  /** Starts the server with `env` (no HOST unless given) and resolves with its output and port. */
  const start = async (env: Record<string, string>) => {
    const database = `sqlite:${join(mkdtempSync(join(tmpdir(), 'shelfmark-bind-')), 'db.sqlite')}`;
    const child = spawn(process.execPath, [join(ROOT, 'dist/main/server.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: database, PORT: '0', SEED: 'demo', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(
      () => /listening on http:\/\/\S+:\d+/.test(output),
      () => `the server to start:\n${output}`,
      60_000,
    );
    const [, host = '', port = ''] = /listening on http:\/\/(\S+):(\d+)/.exec(output) ?? [];
    return { output: () => output, host, port: Number(port) };
  };
  const demoToken = (port: number) =>
    fetch(`http://127.0.0.1:${port}/api/auth/token`, {
      headers: { authorization: basic(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret) },
    });

  it('binds to loopback by default, where the README curl works', async () => {
    const server = await start({});
    // The address printed is the one the kernel bound (Fastify reads server.address()).
    expect(server.host).toBe('127.0.0.1');
    expect(server.output()).toContain(`Try: curl -u ${DEMO_CLIENT.clientId}:`);
    expect((await demoToken(server.port)).status).toBe(200);
    expect(server.output()).not.toContain(WARNING);
  }, 90_000);

  it('bound to 0.0.0.0, a token request on 127.0.0.1 with the demo secret is refused (401, why and how)', async () => {
    const server = await start({ HOST: '0.0.0.0' });
    const response = await demoToken(server.port);
    expect(response.status).toBe(401);
    const body = JSON.stringify(await response.json());
    expect(body).toContain('refused while this server listens on 0.0.0.0 (not loopback)');
    expect(body).toContain('DEMO_CLIENT_PUBLIC=true');
    expect(server.output()).not.toContain('Try: curl');
    expect(server.output()).toContain("The demo client's published secret is refused on 0.0.0.0");
  }, 90_000);

  it('DEMO_CLIENT_PUBLIC=true accepts it on 0.0.0.0 and says so in one warning line', async () => {
    const server = await start({ HOST: '0.0.0.0', DEMO_CLIENT_PUBLIC: 'true' });
    expect((await demoToken(server.port)).status).toBe(200);
    await until(() => server.output().includes(WARNING), 'the warning line', 5000);
    const warnings = server
      .output()
      .split('\n')
      .filter((line) => line.includes(WARNING));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ level: 40 });
  }, 90_000);
});
