/**
 * Scale-out: two API nodes and two delivery workers, four separate processes of the compiled server,
 * on one PostgreSQL. A token minted on one node works on the other; a secret reset on one refuses the
 * old token on the other within 5 s; a fan-out is delivered completely by the two workers, each
 * delivery exactly once (no attempt sent twice).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addSubscription, emit, type Receiver, startReceiver } from '../delivery/support.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';
import { ensureBuilt, type ServerProcess, startServer } from '../support/process.js';
import { until } from '../support/until.js';
import { bearer, SCALE } from './scale.js';

const SUBSCRIPTIONS = 10;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

describeEachEngine('scale-out', (engine) => {
  if (engine === 'sqlite') {
    it('is a PostgreSQL deployment (SQLite is one host by design): the SQLite half checks the compiled server runs as api and worker roles', async () => {
      ensureBuilt();
      const database = await freshDatabase('sqlite', { file: true });
      const api = startServer(database.url, {}, ['--role', 'api']);
      const worker = startServer(database.url, {}, ['--role', 'worker']);
      try {
        expect((await fetch(`${await api.ready}/healthz`)).status).toBe(200);
        expect(await worker.ready).toBe('');
      } finally {
        await api.kill();
        await worker.kill();
        await database.drop();
      }
    }, 60_000);
    return;
  }

  let database: TestDatabase;
  let receiver: Receiver;
  const processes: ServerProcess[] = [];
  beforeAll(async () => {
    ensureBuilt();
    database = await freshDatabase('postgres');
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    for (const process of processes) await process.kill();
    await receiver?.close();
    await database?.drop();
  });

  it(`two API nodes and two workers: tokens cross nodes, a reset applies everywhere within 5 s, ${SCALE.scaleOutEvents} events delivered once each`, async () => {
    const env = { PUBLIC_BASE_URL: 'http://shelfmark.test', RATE_LIMIT_RATE: '100000', WEBHOOK_CONCURRENCY: '16' };
    const [api1, api2, worker1, worker2] = [
      startServer(database.url, env, ['--role', 'api']),
      startServer(database.url, env, ['--role', 'api']),
      startServer(database.url, env, ['--role', 'worker']),
      startServer(database.url, env, ['--role', 'worker']),
    ] as [ServerProcess, ServerProcess, ServerProcess, ServerProcess];
    processes.push(api1, api2, worker1, worker2);
    const [one, two] = await Promise.all([api1.ready, api2.ready, worker1.ready, worker2.ready]);

    const created = (await (
      await fetch(`${one}/api/admin/v1/clients`, { method: 'POST', headers: admin, body: '{"name":"Two-node shop"}' })
    ).json()) as { id: string; clientId: string; clientSecret: string };
    const minted = (await (
      await fetch(`${one}/api/auth/token`, {
        headers: { authorization: basic(created.clientId, created.clientSecret) },
      })
    ).json()) as { access_token: string };
    const offers = (base: string | undefined) =>
      fetch(`${base ?? ''}/api/v1/offers?eans=9780194837125`, { headers: bearer(minted.access_token) });
    expect((await offers(two)).status).toBe(200);
    expect((await offers(one)).status).toBe(200);

    // Reset on node two; node one refuses the old token within 5 s.
    const reset = await fetch(`${two}/api/admin/v1/clients/${created.id}/secret`, {
      method: 'POST',
      headers: { authorization: admin.authorization },
    });
    expect(reset.status).toBe(200);
    const resetAt = Date.now();
    expect((await offers(two)).status).toBe(401);
    await until(async () => (await offers(one)).status === 401, 'node one to refuse the old token', 5000);
    const refusedAfterMs = Date.now() - resetAt;

    // The fan-out, committed through the database both workers share.
    for (let i = 0; i < SUBSCRIPTIONS; i++)
      await addSubscription(database.db, created.id, `${receiver.url}/${i}`, Date.now());
    const perEmit = 100;
    for (let sent = 0; sent < SCALE.scaleOutEvents / SUBSCRIPTIONS; sent += perEmit)
      await emit(database.db, Date.now(), perEmit);
    const total = SCALE.scaleOutEvents;
    const ids = (): string[] => receiver.received.map((request) => String(request.headers['webhook-id']));
    try {
      await until(
        () => new Set(ids()).size === total,
        () => `all ${total} deliveries (have ${new Set(ids()).size})`,
        120_000,
      );
    } catch (error) {
      const rows = await database.db.kysely
        .selectFrom('deliveries')
        .selectAll()
        .where('status', '!=', 'succeeded')
        .limit(3)
        .execute();
      const attempts = await database.db.kysely
        .selectFrom('delivery_attempts')
        .selectAll()
        .where('error_class', 'is not', null)
        .limit(3)
        .execute();
      throw new Error(
        `${(error as Error).message}; unfinished ${JSON.stringify(rows)}; failed attempts ${JSON.stringify(attempts)}; now ${Date.now()}; worker output ${worker1.output().slice(-1500)} ${worker2.output().slice(-1500)}`,
      );
    }
    await until(
      async () =>
        (await database.db.kysely.selectFrom('deliveries').select('id').where('status', '!=', 'succeeded').execute())
          .length === 0,
      'every delivery recorded as succeeded',
      30_000,
    );
    // Healthy workers never send an attempt twice: one request and one attempt row per delivery.
    expect(ids()).toHaveLength(total);
    const attempts = await database.db.kysely.selectFrom('delivery_attempts').select('delivery_id').execute();
    expect(attempts).toHaveLength(total);
    expect(worker1.child.exitCode).toBeNull();
    expect(worker2.child.exitCode).toBeNull();
    console.log(
      `[scale-out] old token refused on the other node after ${refusedAfterMs} ms; ${total} events delivered by 2 workers, 0 lost, 0 sent twice`,
    );
  }, 300_000);
});
