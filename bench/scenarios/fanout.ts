/**
 * Fan-out: one list published to N subscriptions of list.published (SQLite). The subscriptions are
 * registered by a set-up script through the project's own services on the database file BEFORE the
 * server starts; then the compiled server runs, a school and one list per round are created over the
 * admin API, and each round publishes one list: the time from the publish call to the Nth distinct
 * request received by the receiver.
 */
import { epochNow, spread, startReceiver } from '../lib/measure.js';
import { spawnChild } from '../lib/proc.js';
import { admin, freshDatabase, type Server, startServer } from '../lib/shelfmark.js';
import { type ScenarioResult, type Settings, target } from '../lib/types.js';

export async function fanoutScenario(settings: Settings, log: (line: string) => void): Promise<ScenarioResult> {
  const count = settings.fanout;
  const receiver = await startReceiver();
  const db = await freshDatabase('sqlite');
  let server: Server | undefined;
  const times: number[] = [];
  const publishCalls: number[] = [];
  try {
    const setupStarted = Date.now();
    const setup = spawnChild('setup-subscriptions', [
      JSON.stringify({ databaseUrl: db.url, receiverUrl: receiver.hookUrl, count, event: 'list.published' }),
    ]);
    await setup.result(180_000);
    await setup.exited(10_000);
    log(
      `  ${count} subscriptions registered by the set-up script in ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`,
    );
    server = await startServer(db);
    const school = await admin<{ identifier: string }>(server, '/schools', 'POST', {
      name: 'Bench fan-out school',
      type: 'VO',
    });
    const lists: string[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      const list = await admin<{ identifier: string }>(server, '/lists', 'POST', {
        school: school.identifier,
        name: `Bench list ${round}`,
        items: [{ ean: '9789001234560', title: 'Bench book' }],
      });
      lists.push(list.identifier);
    }
    for (const [round, identifier] of lists.entries()) {
      await receiver.reset();
      const started = epochNow();
      await admin(server, `/lists/${identifier}/status`, 'POST', { status: 'published' });
      publishCalls.push(epochNow() - started);
      const stats = await receiver.waitFor(count, Math.max(60_000, count * 20));
      if (stats.distinct < count || stats.nth === null)
        throw new Error(`fan-out: ${stats.distinct} of ${count} delivered`);
      times.push(stats.nth - started);
      log(
        `  round ${round + 1}: ${count} deliveries received ${(stats.nth - started).toFixed(0)} ms after the publish call (call answered in ${(publishCalls[round] ?? 0).toFixed(0)} ms)`,
      );
    }
  } finally {
    await server?.stop();
    await receiver.stop();
    await db.drop();
  }
  const spreadMs = spread(times);
  return {
    rows: [
      {
        scenario: 'fanout',
        party: `Shelfmark, SQLite, ${count} subscriptions`,
        metric: 'publish → last delivery',
        unit: 'ms',
        spread: spreadMs,
      },
      {
        scenario: 'fanout',
        party: `Shelfmark, SQLite, ${count} subscriptions`,
        metric: 'publish call',
        unit: 'ms',
        spread: spread(publishCalls),
      },
    ],
    targets:
      count >= 10_000
        ? [target('fanout', 'one list → 10,000 subscriptions delivered ≤ 5 s', spreadMs.median, 5000, 'ms', 'atMost')]
        : [],
    notes:
      count >= 10_000
        ? []
        : [`fanout: ${count} subscriptions (quick run); the target (10,000 in ≤ 5 s) is judged on a full run only`],
    raw: { subscriptions: count, msToLastDelivery: times, publishCallMs: publishCalls },
  };
}
