/**
 * Crash: the compiled server is SIGKILLed five times during one fan-out (5,000 deliveries in the full
 * run) and started again each time. After the last restart every delivery has arrived, each recorded as
 * succeeded; the only duplicates are re-sends of attempts a kill left unrecorded (in flight, or waiting in
 * the completion backlog for their group commit), with the same webhook-id and body.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  addSubscription,
  emit,
  expectOwnPayloads,
  payloadsByDelivery,
  type Receiver,
  startReceiver,
} from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { ensureBuilt, type ServerProcess, startServer } from '../support/process.js';
import { until } from '../support/until.js';
import { useHarness } from '../support/use-harness.js';
import { SCALE } from './scale.js';

const TOTAL = SCALE.crashSubscriptions * SCALE.crashEvents;
const CONCURRENCY = 8;
const BACKLOG = 8;

describeEachEngine(`crash: ${SCALE.crashKills} SIGKILLs during a fan-out of ${TOTAL} deliveries`, (engine) => {
  const h = useHarness(engine, { options: { file: true } });
  let receiver: Receiver;
  const servers: ServerProcess[] = [];

  beforeEach(async () => {
    ensureBuilt();
    receiver = await startReceiver(() => ({ delayMs: 5 }));
  }, 120_000);
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.kill();
    await receiver.close();
  });

  it('every delivery arrives; duplicates carry the same webhook-id and body', async () => {
    const client = await createClientWithToken(h);
    for (let i = 0; i < SCALE.crashSubscriptions; i++)
      await addSubscription(h.database.db, client.id, `${receiver.url}/${i}`, Date.now());
    await emit(h.database.db, Date.now(), SCALE.crashEvents);
    const payloadOf = await payloadsByDelivery(h.database.db);
    expect(payloadOf.size).toBe(TOTAL);
    const distinct = (): number =>
      new Set(receiver.received.map((request) => String(request.headers['webhook-id']))).size;
    const env = { WEBHOOK_CONCURRENCY: String(CONCURRENCY), WEBHOOK_COMPLETION_BACKLOG: String(BACKLOG) };

    const atKills: number[] = [];
    for (let kill = 1; kill <= SCALE.crashKills; kill++) {
      const server = startServer(h.database.url, env);
      servers.push(server);
      await server.ready;
      // Kill at evenly spaced points of the fan-out, with work both done and still to do.
      const target = Math.floor((TOTAL * kill) / (SCALE.crashKills + 1));
      await until(
        () => distinct() >= target,
        () => `${target} deliveries before kill ${kill} (have ${distinct()})`,
        60_000,
      );
      await server.kill();
      atKills.push(distinct());
    }
    expect(atKills[atKills.length - 1]).toBeLessThan(TOTAL);

    const last = startServer(h.database.url, env);
    servers.push(last);
    await last.ready;
    await until(
      () => distinct() === TOTAL,
      () => `all ${TOTAL} deliveries (have ${distinct()})`,
      120_000,
    );
    const unfinished = async (): Promise<number> =>
      (await h.database.db.kysely.selectFrom('deliveries').select('id').where('status', '!=', 'succeeded').execute())
        .length;
    await until(async () => (await unfinished()) === 0, 'every delivery recorded as succeeded', 30_000);
    expect(await last.stop()).toBe(0);

    expectOwnPayloads(receiver.received, payloadOf);
    const duplicates = receiver.received.length - TOTAL;
    console.log(
      `[crash, ${engine}] ${SCALE.crashKills} kills survived at ${atKills.join(', ')} distinct deliveries; ${TOTAL} delivered, 0 lost, ${duplicates} duplicate(s) with the same webhook-id`,
    );
    // Only attempts a kill left unrecorded can repeat: at most in flight plus the completion backlog, per kill.
    expect(duplicates).toBeLessThanOrEqual(SCALE.crashKills * (CONCURRENCY + BACKLOG));
  }, 300_000);
});
