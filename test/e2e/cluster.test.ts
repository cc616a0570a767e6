/**
 * CLUSTER_WORKERS as an operator runs it: the compiled server with one HTTP process per core on one
 * port, on SQLite and on PostgreSQL. Tokens minted by one child work on the others, and an offer
 * written through one child is served (and withdrawn) by every child within the sync interval.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { freePort } from '../support/free-port.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';
import { until } from '../support/until.js';

const root = join(import.meta.dirname, '..', '..');
const SYNC_MS = 200;

/** One request on a connection of its own, so node:cluster may hand it to any child. */
async function fresh(
  url: string,
  init: { method?: 'GET' | 'POST' | 'PATCH'; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const agent = new Agent({ pipelining: 0 });
  try {
    const response = await request(url, {
      method: init.method ?? 'GET',
      headers: init.headers,
      body: init.body,
      dispatcher: agent,
    });
    return { status: response.statusCode, text: await response.body.text() };
  } finally {
    await agent.close();
  }
}

describeEachEngine('CLUSTER_WORKERS', (engine) => {
  let database: TestDatabase | undefined;
  let server: ReturnType<typeof spawn> | undefined;

  beforeAll(() => {
    if (!existsSync(join(root, 'dist', 'main', 'server.js')))
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  }, 120_000);
  afterEach(async () => {
    if (server !== undefined && server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    await database?.drop();
  });

  it('serves from two processes on one port; tokens and offer writes hold across them', async () => {
    database = await freshDatabase(engine, { file: true });
    await database.db.close();
    const port = await freePort();
    server = spawn(process.execPath, [join(root, 'dist', 'main', 'server.js')], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
        SEED: 'none',
        DATABASE_URL: database.url,
        ADMIN_TOKEN,
        CLUSTER_WORKERS: '2',
        OFFERS_SYNC_INTERVAL_MS: String(SYNC_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(() => (output.match(/cluster child listening/g) ?? []).length === 2, 'two children listening');
    expect(output).toContain(`(role all, ${engine}, 2 HTTP processes)`);
    const pids = new Set([...output.matchAll(/"pid":(\d+)[^\n]*cluster child listening/g)].map((match) => match[1]));
    expect(pids.size).toBe(2);

    const base = `http://127.0.0.1:${port}`;
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = await fresh(`${base}/api/admin/v1/clients`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Shop' }),
    });
    expect(created.status).toBe(201);
    const client = JSON.parse(created.text) as { clientId: string; clientSecret: string };
    const token = JSON.parse(
      (
        await fresh(`${base}/api/auth/token`, {
          headers: { authorization: basic(client.clientId, client.clientSecret) },
        })
      ).text,
    ) as { access_token: string };
    const bearer = { authorization: `Bearer ${token.access_token}` };
    const ean = '9789001891442';

    // Every child answers empty first, so each has the EAN in its read model before the write.
    for (let i = 0; i < 6; i++)
      expect(await fresh(`${base}/api/v1/offers?eans=${ean}`, { headers: bearer })).toEqual({
        status: 200,
        text: '[]',
      });

    const offer = await fresh(`${base}/api/admin/v1/offers`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ ean, price: 10, condition: 'good' }),
    });
    expect(offer.status).toBe(201);
    const { id } = JSON.parse(offer.text) as { id: number };
    const allSee = async (predicate: (text: string) => boolean): Promise<boolean> => {
      for (let i = 0; i < 6; i++) {
        const answer = await fresh(`${base}/api/v1/offers?eans=${ean}`, { headers: bearer });
        if (answer.status !== 200 || !predicate(answer.text)) return false;
      }
      return true;
    };
    await until(
      () => allSee((text) => text.includes(`"id":${id}`)),
      'every child to serve the new offer',
      SYNC_MS * 10 + 2000,
    );
    expect(
      (
        await fresh(`${base}/api/admin/v1/offers/${id}`, {
          method: 'PATCH',
          headers: admin,
          body: JSON.stringify({ status: 'withdrawn' }),
        })
      ).status,
    ).toBe(200);
    await until(() => allSee((text) => text === '[]'), 'every child to drop the withdrawn offer', SYNC_MS * 10 + 2000);

    server.kill('SIGTERM');
    const [code] = (await once(server, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
