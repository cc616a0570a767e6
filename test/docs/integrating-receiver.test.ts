/**
 * docs/integrating.md's receiver snippet, run as it is written (only the addresses are the test's):
 * against a server with the demo data it subscribes, acknowledges a test ping without fetching
 * anything (a ping names no list), and prints a published list it fetched.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { DEMO_CLIENT, seedDemo } from '../../src/seed/demo.js';
import { describeEachEngine } from '../support/engines.js';
import { freePort } from '../support/free-port.js';
import { createHarness, type Harness } from '../support/harness.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The TypeScript block that follows "In your own code" in the integrating guide. */
function snippet(): string {
  const guide = readFileSync(join(ROOT, 'docs/integrating.md'), 'utf8');
  const code = /In your own code[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];
  expect(code, 'a ```ts block after "In your own code"').toBeDefined();
  return code ?? '';
}

describeEachEngine("the integrating guide's receiver snippet", (engine) => {
  let h: Harness | undefined;
  let child: ChildProcess | undefined;
  let file = '';
  afterEach(async () => {
    child?.kill('SIGTERM');
    await h?.close();
    if (file !== '') rmSync(file, { force: true });
  });

  it('acknowledges a test ping without fetching anything, and fetches the list a webhook names', async () => {
    h = await createHarness(engine, { webhookAllowPrivate: true });
    h.clock.set(Date.now());
    const base = await h.listen();
    await seedDemo(h.services, SYSTEM);
    const port = await freePort();
    const code = snippet();
    expect(code).toContain("if (event.type === 'ping')");
    // Beside the repository's node_modules, so '@shelfmark/client' resolves as in an application.
    const dir = join(ROOT, 'test-artifacts');
    mkdirSync(dir, { recursive: true });
    file = join(dir, `integrating-receiver-${engine}.mts`);
    writeFileSync(
      file,
      code
        .replaceAll('http://localhost:3000', base)
        .replaceAll('8080', String(port))
        // Top-level await keeps the snippet's order; the process stays up while its receiver listens.
        .concat('\n'),
    );
    let output = '';
    child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      env: { ...process.env, WEBHOOK_SECRET: DEMO_CLIENT.webhookSecret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));

    const receiverUrl = `http://127.0.0.1:${port}/`;
    const subscriptions = () =>
      h?.database.db.kysely
        .selectFrom('subscriptions')
        .select(['id', 'event'])
        .where('notification_url', '=', receiverUrl)
        .execute();
    await vi.waitFor(async () => expect(await subscriptions()).toHaveLength(1), { timeout: 20_000, interval: 100 });
    const [subscription] = (await subscriptions()) ?? [];
    expect(subscription?.event).toBe('list.published');

    // The test ping, as the portal and the SDK send it: answered 2xx, and the snippet fetches nothing.
    const client = await h.services.clients.findByClientId(DEMO_CLIENT.clientId);
    const ping = await h.services.deliveries.ping(subscription?.id ?? '', client?.id ?? '', SYSTEM);
    expect(ping).toMatchObject({ ok: true, statusCode: 204 });
    await vi.waitFor(() => expect(output).toContain('test ping received\n'), { timeout: 10_000 });

    // A real event: the snippet fetches the list it names and prints it.
    const admin = h.asAdmin();
    const school = (await admin.get('/api/admin/v1/schools')).json<{ data: { identifier: string }[] }>().data[0];
    const list = (await admin.post('/api/admin/v1/lists', { school: school?.identifier, name: 'vwo 5' })).json<{
      identifier: string;
    }>().identifier;
    expect((await admin.post(`/api/admin/v1/lists/${list}/status`, { status: 'published' })).statusCode).toBe(200);
    const worker = h.services.createDeliveryWorker({ onError: () => undefined });
    try {
      expect(await worker.runOnce()).toBe(1);
      await vi.waitFor(() => expect(output).toContain(`identifier: '${list}'`), { timeout: 10_000 });
    } finally {
      await worker.stop();
    }
    expect(output).toContain('list.published {');
    expect(output).toContain("name: 'vwo 5'");
    // Nothing failed: no 404 for the ping's identifier, no refused signature (the kit logs both so).
    expect(output).not.toContain('[shelfmark webhooks]');
  }, 60_000);
});
