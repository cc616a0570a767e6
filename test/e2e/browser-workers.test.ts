/**
 * In a real browser: the console's overview warns when deliveries wait and no delivery worker is
 * alive, says how many and for how long, in English and in Dutch, at 1280 and 390 px; with a worker
 * alive it says nothing. Each test has an instance of its own (support.ts).
 */
import { expect, it } from 'vitest';
import { addSubscription, emit } from '../delivery/support.js';
import { skipBrowser } from '../support/browser.js';
import { describeEachEngine } from '../support/engines.js';
import { section, useBrowserWorlds, type World } from './support.js';

const MINUTE = 60_000;

/** Three deliveries waiting (due tomorrow, so the world's running worker leaves them). */
async function waiting(w: World): Promise<void> {
  const db = w.h.database.db;
  const client = await w.shop();
  await addSubscription(db, client.id, w.ok.url, w.h.clock.now());
  await emit(db, w.h.clock.now(), 3);
  await db.kysely
    .updateTable('deliveries')
    .set({ next_attempt_at: w.h.clock.now() + 24 * 60 * MINUTE })
    .execute();
}

describeEachEngine('the console notices a missing worker', (engine) => {
  // The heartbeat's own timer stays out of the test's way: beats are set in the table below.
  const world = useBrowserWorlds(engine);

  it.skipIf(skipBrowser)(
    'the overview says how many deliveries wait and how long no worker has been seen, in English and Dutch',
    async () => {
      const w = await world({ workerHeartbeatSeconds: 600 });
      await waiting(w);
      const op = await w.operator();
      // The world's worker is alive: no warning.
      expect(await op.locator('[data-notice="no-worker"]').count()).toBe(0);

      // Its process went away two minutes ago (as a stop records it).
      const gone = w.h.clock.now() - 2 * MINUTE - 5000;
      await w.h.database.db.kysely
        .updateTable('worker_heartbeats')
        .set({ last_seen_at: gone, stopped_at: gone })
        .execute();
      await section(op, 'Overview', 'Overview');
      const notice = op.locator('[data-notice="no-worker"]');
      expect(await notice.getAttribute('role')).toBe('alert');
      expect(await notice.textContent()).toBe(
        '3 deliveries waiting, no worker seen for 2 min. Only a worker process sends them: start one with npx shelfmark serve --role worker (a server started with --role all runs one too).',
      );
      await w.shoot(op, 'console-overview-no-worker', () => section(op, 'Overview', 'Overview'));

      await op.goto(`${w.base}/language/nl?back=/dashboard`);
      await op.locator('main h1', { hasText: 'Overzicht' }).waitFor();
      expect(await op.locator('[data-notice="no-worker"]').textContent()).toMatch(
        /^3 afleveringen wachten en al 2 min\.? is er geen worker gezien\. Alleen een workerproces verstuurt ze/,
      );
      await w.shoot(op, 'console-overview-no-worker-nl', () => section(op, 'Overzicht', 'Overzicht'));
    },
  );
});
