/**
 * A CSV import of 10,000 offers is SIGKILLed while it runs, before any worker ran. The import writes
 * its offers, their offer.published events and the deliveries in one transaction, so the kill leaves
 * all of it or none of it; run again, the import completes, and once a worker starts every committed
 * offer is announced exactly once: nothing of the killed run leaks, nothing committed is lost.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { addSubscription, type Receiver, startReceiver } from '../delivery/support.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createClientWithToken } from '../support/harness.js';
import { ensureBuilt, ROOT, type ServerProcess, startServer } from '../support/process.js';
import { until } from '../support/until.js';
import { useHarness } from '../support/use-harness.js';

const ROWS = 10_000;

describeEachEngine('crash: an offer import killed while it runs', (engine) => {
  const h = useHarness(engine, { options: { file: true } });
  let receiver: Receiver;
  let dir: string;
  let worker: ServerProcess | undefined;

  beforeEach(async () => {
    ensureBuilt();
    receiver = await startReceiver();
    dir = await mkdtemp(join(tmpdir(), 'shelfmark-import-crash-'));
  }, 120_000);
  afterEach(async () => {
    await worker?.kill();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  const offers = () => h.database.db.kysely.selectFrom('offers').select(['identifier']).execute();

  it('the kill leaves all or nothing; run again, every offer is announced once a worker runs, exactly once', async () => {
    const client = await createClientWithToken(h);
    await addSubscription(h.database.db, client.id, `${receiver.url}/offers`, Date.now(), 'offer.published');
    const csv = [
      'ean,price,condition,status',
      ...Array.from({ length: ROWS }, (_, i) => `${eanOf(500_000 + i)},7.5,good,published`),
    ];
    const file = join(dir, 'offers.csv');
    await writeFile(file, `${csv.join('\n')}\n`);

    const runImport = () =>
      spawn(process.execPath, ['bin/shelfmark.js', 'offers', 'import', file], {
        cwd: ROOT,
        // The transaction holds 0–1,000 ms before its commit (the outbox's test hold), so a kill soon
        // after the start mostly lands inside it.
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: h.database.url,
          ADMIN_TOKEN,
          LOG_LEVEL: 'warn',
          SHELFMARK_TEST_HOLD_EVENTS_MS: '1000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const killed = runImport();
    const killedExit = once(killed, 'exit');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    killed.kill('SIGKILL');
    await killedExit;

    // All or nothing: the offers, their events and their deliveries, together.
    const afterKill = new Set((await offers()).map((row) => row.identifier));
    expect([0, ROWS]).toContain(afterKill.size);
    const eventsNow = async () =>
      new Set(
        (
          await h.database.db.kysely
            .selectFrom('events')
            .select(['identifier'])
            .where('name', '=', 'offer.published')
            .execute()
        ).map((row) => row.identifier),
      );
    expect(await eventsNow()).toEqual(afterKill);
    expect(await h.database.db.kysely.selectFrom('deliveries').select('id').execute()).toHaveLength(afterKill.size);

    // Run again: it completes (or, having committed, changes nothing).
    const again = runImport();
    const [code] = await once(again, 'exit');
    expect(code).toBe(0);
    const committed = new Set((await offers()).map((row) => row.identifier));
    expect(committed.size).toBe(ROWS);
    expect(await eventsNow()).toEqual(committed);
    expect(await h.database.db.kysely.selectFrom('deliveries').select('id').execute()).toHaveLength(ROWS);

    worker = startServer(h.database.url, { WEBHOOK_CONCURRENCY: '16' }, ['--role', 'worker']);
    await worker.ready;
    const announced = () =>
      new Set(receiver.received.map((r) => (JSON.parse(r.body) as { identifier: string }).identifier));
    await until(
      () => announced().size >= committed.size,
      () => `${committed.size} announcements (have ${announced().size})`,
      120_000,
    );
    expect(announced()).toEqual(committed);
    for (const request of receiver.received) {
      expect(JSON.parse(request.body)).toEqual({
        type: 'published',
        resource: 'offer',
        identifier: expect.any(String),
      });
      expect(request.headers['x-hook-event']).toBe('offer.published');
    }
  }, 240_000);
});
