/**
 * The examples run verbatim against a demo server: a real Shelfmark with the demo data (the seed
 * `npm start` uses), listening on 127.0.0.1. Each script is also started as its own process exactly as
 * the README says (`tsx examples/...`), with only SHELFMARK_URL pointing at the test server's port.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { clientFromEnv, DEMO_WEBHOOK_SECRET } from '../../../examples/env.js';
import { listOffers } from '../../../examples/list-offers.js';
import { startReceiver } from '../../../examples/receiver.js';
import { setUpSubscription } from '../../../examples/subscribe.js';
import { SYSTEM } from '../../../src/audit/initiator.js';
import type { DeliveryWorker } from '../../../src/delivery/worker.js';
import { DEMO_CLIENT, seedDemo } from '../../../src/seed/demo.js';
import { describeEachEngine } from '../../../test/support/engines.js';
import { type Served, serve } from './support.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs an example as a child process (node --import tsx, which is what `npx tsx` does) and collects its output. */
function run(
  script: string,
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', `examples/${script}`, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describeEachEngine('examples against the demo server', (engine) => {
  let s: Served;
  let worker: DeliveryWorker;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    s = await serve(engine, { webhookAllowPrivate: true });
    s.h.clock.set(Date.now());
    await seedDemo(s.h.services, SYSTEM);
    worker = s.h.services.createDeliveryWorker({ onError: () => undefined });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
    await worker.stop();
    await s.h.close();
  });

  it('env.ts defaults to the demo client, which is what the seed creates', () => {
    const client = clientFromEnv({});
    expect(client.endpoints).toEqual({
      environment: 'production',
      baseUrl: 'http://localhost:3000',
      lmlBaseUrl: 'http://localhost:3000',
    });
    expect(DEMO_WEBHOOK_SECRET).toBe(DEMO_CLIENT.webhookSecret);
  });

  it('list-offers prints the first published list and the offers for each of its books, in-process and as a script', async () => {
    const client = clientFromEnv({ SHELFMARK_URL: s.url });
    const lines = await listOffers(client);
    const first = (await client.lml.lists.page({ status: 'published', limit: 1 })).data[0]!;
    expect(lines[0]).toBe(
      `${first.name} (${first.breadcrumb.join(' › ')}; published, ${first.items.length} books, list ${first.identifier})`,
    );
    expect(lines).toHaveLength(
      1 +
        first.items.length +
        (
          await Promise.all(
            first.items.map(async (item) => Math.max(1, (await client.offers.byEans([item.ean])).length)),
          )
        ).reduce((a, b) => a + b, 0),
    );
    const vwo = await listOffers(client, (await findList(client, 'vwo 4')).slug);
    expect(vwo[0]).toMatch(/^vwo 4 \(Erasmus Lyceum Zuid › 2026-2027 › vwo › vwo 4; published, 4 books/);
    expect(vwo).toContain('  9789001891442  Getal & Ruimte 12e ed. wiskunde B vwo 4 deel 1');
    expect(vwo).toContain('  9789001774363  Geschiedeniswerkplaats 4e ed. 3 vwo (optional)');
    // Geschiedeniswerkplaats has no published offer in the demo data.
    expect(vwo[vwo.indexOf('  9789001774363  Geschiedeniswerkplaats 4e ed. 3 vwo (optional)') + 1]).toBe(
      '      no offers',
    );
    const offers = await client.offers.byEans(['9789001891442']);
    expect(offers.length).toBeGreaterThan(1);
    for (const offer of offers)
      expect(
        vwo.some((line) => line.startsWith(`      #${offer.id}  € ${offer.price.toFixed(2)}  ${offer.condition}`)),
      ).toBe(true);

    const script = run('list-offers.ts', [(await findList(client, 'vwo 4')).identifier], { SHELFMARK_URL: s.url });
    children.push(script.child);
    expect(await script.exited).toBe(0);
    expect(script.output()).toBe(`${vwo.join('\n')}\n`);
  });

  it('subscribe sets up a subscription and pings it; the receiver verifies the ping and a real list event', async () => {
    const logged: string[] = [];
    const client = clientFromEnv({ SHELFMARK_URL: s.url });
    const receiver = await startReceiver({
      port: 0,
      secrets: [DEMO_WEBHOOK_SECRET],
      client,
      log: (line) => logged.push(line),
    });
    try {
      const { subscription, ping, all } = await setUpSubscription(client, receiver.url, 'list-created');
      expect(subscription).toMatchObject({ notificationUrl: receiver.url, event: 'list-created', status: 'active' });
      expect(all.map((each) => each.id)).toEqual([subscription.id]);
      // The ping was sent before its answer came back: nothing is left for the worker.
      expect(ping.ok).toBe(true);
      expect(await worker.runOnce()).toBe(0);
      await vi.waitFor(() => expect(logged).toHaveLength(1));
      expect(logged[0]).toMatch(new RegExp(`^ping subscription [0-9a-f]{32} \\(webhook-id ${ping.deliveryId}\\)$`));

      const school = (await client.lml.schools.page()).data[0]!;
      const created = await s.admin('POST', '/lists', {
        school: school.identifier,
        name: 'vwo 5',
        items: [{ ean: '9789001891442', title: 'Getal & Ruimte' }],
      });
      expect(await worker.runOnce()).toBe(1);
      await vi.waitFor(() => expect(logged).toHaveLength(2));
      const listDelivery = (
        await s.h.database.db.kysely.selectFrom('deliveries').select('id').where('id', '!=', ping.deliveryId).execute()
      )[0]!;
      expect(logged[1]).toBe(
        `list.created list ${created.json<{ identifier: string }>().identifier} (webhook-id ${listDelivery.id}): list "vwo 5" of ${school.name}, now created`,
      );
    } finally {
      await receiver.close();
    }
  });

  it('the receiver and subscribe scripts, started as processes, work together verbatim', async () => {
    const receiver = run('receiver.ts', [], { SHELFMARK_URL: s.url, PORT: '0' });
    children.push(receiver.child);
    await vi.waitFor(
      () => expect(receiver.output()).toMatch(/receiving webhooks at (http:\/\/127\.0\.0\.1:\d+\/hooks)/),
      { timeout: 15_000, interval: 50 },
    );
    const url = /receiving webhooks at (\S+)/.exec(receiver.output())![1]!;

    const subscribe = run('subscribe.ts', [url, 'school-created'], { SHELFMARK_URL: s.url });
    children.push(subscribe.child);
    expect(await subscribe.exited).toBe(0);
    const subscription = (await s.h.database.db.kysely.selectFrom('subscriptions').selectAll().execute())[0]!;
    const [pingDelivery, ...others] = await s.h.database.db.kysely.selectFrom('deliveries').selectAll().execute();
    expect(others).toEqual([]);
    expect(subscribe.output()).toBe(
      [
        `subscription ${subscription.id}: school-created -> ${url} (active)`,
        `test ping delivered (HTTP 204) as delivery ${pingDelivery!.id}`,
        'you have 1 subscription:',
        `  ${subscription.id}  school-created  ${url}  active`,
        '',
      ].join('\n'),
    );
    // Sent before subscribe.ts had its answer: nothing is left for the worker.
    expect(await worker.runOnce()).toBe(0);
    await vi.waitFor(() =>
      expect(receiver.output()).toMatch(
        new RegExp(`\\nping subscription [0-9a-f]{32} \\(webhook-id ${pingDelivery!.id}\\)\\n`),
      ),
    );
    const [row] = await s.h.database.db.kysely
      .selectFrom('deliveries')
      .selectAll()
      .where('id', '=', pingDelivery!.id)
      .execute();
    expect(row).toMatchObject({ status: 'succeeded', last_status_code: 204 });

    const usage = run('subscribe.ts', [], { SHELFMARK_URL: s.url });
    children.push(usage.child);
    expect(await usage.exited).toBe(2);
    expect(usage.output()).toBe('usage: npx tsx examples/subscribe.ts <notification URL> [event]\n');
  });
});

async function findList(client: ReturnType<typeof clientFromEnv>, name: string) {
  for await (const list of client.lml.lists.all()) if (list.name === name) return list;
  throw new Error(`no list named ${name}`);
}
