/**
 * The process roles as an operator runs them: `--role worker` sends webhooks without serving HTTP,
 * and SEED=none starts an empty service.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addSubscription, emit, type Receiver, startReceiver } from '../delivery/support.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { until } from '../support/until.js';

const root = join(import.meta.dirname, '..', '..');

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [join(root, 'dist', 'main', 'server.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', SEED: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

describe('process roles', () => {
  let h: Harness | undefined;
  let receiver: Receiver | undefined;

  beforeAll(() => {
    if (!existsSync(join(root, 'dist', 'main', 'server.js')))
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  }, 120_000);
  afterEach(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('--role worker delivers what the API committed, serves no HTTP and stops cleanly on SIGTERM', async () => {
    h = await createHarness('sqlite', { webhookAllowPrivate: true }, { file: true });
    receiver = await startReceiver();
    const client = await createClientWithToken(h);
    await addSubscription(h.database.db, client.id, receiver.url, Date.now());
    const events = await emit(h.database.db, Date.now(), 25);

    const worker = run(['--role', 'worker'], {
      DATABASE_URL: h.database.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ADMIN_TOKEN: 'test-admin-token-0123456789',
    });
    await receiver.waitFor(25, 20_000);
    expect(new Set(receiver.received.map((request) => JSON.parse(request.body).identifier))).toEqual(
      new Set(events.map((event) => event.identifier)),
    );
    // A worker-only process on a SQLite file runs its queue on a thread of its own (WEBHOOK_QUEUE_THREAD=auto).
    expect(worker.output()).toContain('Shelfmark worker (role worker, sqlite, delivery queue on its own thread)');
    expect(worker.output()).not.toContain('listening on');
    worker.child.kill('SIGTERM');
    const [code] = await once(worker.child, 'exit');
    expect(code).toBe(0);
    const rows = await h.database.db.kysely.selectFrom('deliveries').select(['status', 'attempt_count']).execute();
    expect(rows).toHaveLength(25);
    expect(rows.every((row) => row.status === 'succeeded' && row.attempt_count === 1)).toBe(true);
  });

  it('SEED=none starts an empty service: no demo client, no demo offers', async () => {
    h = await createHarness('sqlite', {}, { file: true });
    await h.app.close();
    const server = run([], { DATABASE_URL: h.database.url, ADMIN_TOKEN: 'test-admin-token-0123456789' });
    await until(() => /listening on (http:\/\/\S+)/.test(server.output()), 'the server to listen');
    const url = /listening on (http:\/\/\S+)/.exec(server.output())?.[1] ?? '';
    const token = await fetch(`${url}/api/auth/token`, {
      headers: {
        authorization: `Basic ${Buffer.from('smc_demo:sms_demo_secret_do_not_use_in_production').toString('base64')}`,
      },
    });
    expect(token.status).toBe(401);
    const clients = await fetch(`${url}/api/admin/v1/clients`, {
      headers: { authorization: 'Bearer test-admin-token-0123456789' },
    });
    expect(await clients.json()).toEqual({ data: [] });
    expect(server.output()).not.toContain('Demo data seeded');
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  });
});
