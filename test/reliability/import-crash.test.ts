/**
 * A CSV import of 10,000 offers is SIGKILLed after some of its batches committed and before any worker
 * ran. Each batch writes its offers, their offer.published events and the deliveries in one
 * transaction, so after a worker starts every committed offer is announced exactly as committed: no
 * event of a committed batch is lost, none of an uncommitted batch leaks.
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

describeEachEngine('crash: an offer import killed between its batches and their delivery', (engine) => {
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

  it('every committed offer is announced once a worker runs; nothing of the killed batch appears', async () => {
    const client = await createClientWithToken(h);
    await addSubscription(h.database.db, client.id, `${receiver.url}/offers`, Date.now(), 'offer.published');
    const csv = [
      'ean,price,condition,status',
      ...Array.from({ length: ROWS }, (_, i) => `${eanOf(500_000 + i)},7.5,good,published`),
    ];
    const file = join(dir, 'offers.csv');
    await writeFile(file, `${csv.join('\n')}\n`);

    const importer = spawn(process.execPath, ['bin/shelfmark.js', 'offers', 'import', file], {
      cwd: ROOT,
      // Each batch's transaction held 0–1,000 ms before its commit (the outbox's test hold): the 18 batches
      // after the first two then take about 9 s, so the kill lands mid-import however long this process
      // stalls between two looks at the table (with shorter holds the whole import can commit between two
      // looks), and sometimes inside a batch not yet committed.
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: h.database.url,
        ADMIN_TOKEN,
        LOG_LEVEL: 'warn',
        SHELFMARK_TEST_HOLD_EVENTS_MS: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(importer, 'exit');
    await until(async () => (await offers()).length >= 1000, 'two committed batches', 60_000);
    importer.kill('SIGKILL');
    await exited;

    const committed = new Set((await offers()).map((row) => row.identifier));
    expect(committed.size).toBeGreaterThanOrEqual(1000);
    expect(committed.size, 'the import was killed before its end').toBeLessThan(ROWS);
    const events = await h.database.db.kysely
      .selectFrom('events')
      .select(['identifier'])
      .where('name', '=', 'offer.published')
      .execute();
    expect(new Set(events.map((row) => row.identifier))).toEqual(committed);
    const deliveries = await h.database.db.kysely.selectFrom('deliveries').select('id').execute();
    expect(deliveries).toHaveLength(committed.size);

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
