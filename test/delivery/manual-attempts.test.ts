/**
 * Attempts made by hand and what the log says of failed attempts: a test ping is one
 * attempt whose answer is its outcome and which leaves the subscription's health alone; "Retry now"
 * takes no step of the retry schedule; every failed attempt writes one warn line without secrets.
 * Real sockets: a node:http receiver on 127.0.0.1 and the real undici sender; a manual clock.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { logLines } from '../support/log-lines.js';
import { addSubscription, attemptRows, emit, type Receiver, type Reply, startReceiver } from './support.js';

const MINUTE = 60_000;
/** 5 min, 34 min, 2 h: the steps the issue names. */
const SCHEDULE = [300, 2040, 7200];

interface Warned {
  fields: Record<string, unknown>;
  message: string;
}

describeEachEngine('attempts by hand and failed-attempt log lines', (engine) => {
  let h: Harness;
  let receiver: Receiver;
  let client: Awaited<ReturnType<typeof createClientWithToken>>;
  let subscriptionId: string;
  const appLines: string[] = [];
  const warned: Warned[] = [];

  const setup = async (respond: (index: number) => Reply): Promise<void> => {
    appLines.length = 0;
    warned.length = 0;
    h = await createHarness(
      engine,
      { webhookAllowPrivate: true, webhookRetryScheduleSeconds: SCHEDULE, webhookTimeoutMs: 2000, logLevel: 'info' },
      { logStream: logLines(appLines) },
    );
    client = await createClientWithToken(h);
    receiver = await startReceiver((_request, index) => respond(index));
    subscriptionId = await addSubscription(h.database.db, client.id, receiver.url, h.clock.now());
  };
  afterEach(async () => {
    await receiver.close();
    await h.close();
  });

  const runOnce = async (): Promise<number> => {
    const worker = h.services.createDeliveryWorker({
      random: () => 0.5,
      onError: (error) => {
        throw error;
      },
      logger: {
        warn: (fields: Record<string, unknown>, message: string) => warned.push({ fields, message }),
        error: () => undefined,
      } as never,
    });
    try {
      return await worker.runOnce();
    } finally {
      await worker.stop();
    }
  };
  const delivery = async (id: string) =>
    h.database.db.kysely.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const subscription = async () =>
    h.database.db.kysely
      .selectFrom('subscriptions')
      .select(['status', 'failing_since', 'consecutive_failures'])
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
  const ping = () => h.as(client).post(`/api/lml/v1/subscriptions/${subscriptionId}/ping`);

  it('a failed test ping answers its failure, is one attempt and leaves the subscription healthy', async () => {
    await setup(() => ({ status: 500, body: 'receiver broke' }));
    const response = await ping();
    expect(response.statusCode).toBe(200);
    const outcome = response.json<{ deliveryId: string }>();
    expect(outcome).toEqual({
      deliveryId: expect.stringMatching(/^dlv_/),
      ok: false,
      statusCode: 500,
      errorClass: 'http',
      error: 'HTTP 500',
      durationMs: expect.any(Number),
    });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.headers['webhook-id']).toBe(outcome.deliveryId);
    // Its failed attempt is logged like any other (34.11), with no next attempt.
    const pingLines = appLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.deliveryId === outcome.deliveryId);
    expect(pingLines).toEqual([
      expect.objectContaining({
        level: 40,
        subscriptionId,
        attempt: 1,
        statusCode: 500,
        nextAttemptAt: null,
        trigger: 'ping',
        msg: 'delivery attempt 1 failed (HTTP 500); next attempt: none, a ping is one attempt',
      }),
    ]);
    // Finished at once with its one attempt: nothing for a worker to retry.
    expect(await delivery(outcome.deliveryId)).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(await attemptRows(h.database.db, outcome.deliveryId)).toHaveLength(1);
    h.clock.advance(3 * 3600_000);
    expect(await runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    // Not failing, no failed attempt in its run, nothing in the hourly counters.
    expect(await subscription()).toEqual({ status: 'active', failing_since: null, consecutive_failures: 0 });
    expect(await h.database.db.kysely.selectFrom('delivery_stats').selectAll().execute()).toEqual([]);
    const health = await h.asAdmin().get('/api/admin/v1/subscription-health');
    expect(health.json()).toEqual({ data: [] });
    // Never sent again: not by a retry, not by a recovery.
    const retry = await h.asAdmin().post(`/api/admin/v1/deliveries/${outcome.deliveryId}/retry`);
    expect(retry.statusCode).toBe(409);
    expect(retry.json<{ detail: string }>().detail).toBe('a test ping is one attempt; send another ping instead');
    const recovered = await h.asAdmin().post(`/api/admin/v1/subscriptions/${subscriptionId}/recover-failed`);
    expect(recovered.json()).toMatchObject({ requeued: 0 });
    expect(await runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    // The delivery log shows it as the failed ping it was.
    const listed = await h.asAdmin().get(`/api/admin/v1/deliveries?event=ping&subscriptionId=${subscriptionId}`);
    expect(listed.json<{ data: unknown[] }>().data).toEqual([
      expect.objectContaining({ id: outcome.deliveryId, event: 'ping', status: 'failed', attemptCount: 1 }),
    ]);
  });

  it('a ping answered 2xx is ok; one that finds no receiver names the error class', async () => {
    await setup(() => ({ status: 204 }));
    const ok = await ping();
    expect(ok.json()).toMatchObject({ ok: true, statusCode: 204, errorClass: null, error: null });
    await receiver.close();
    const refused = await ping();
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toMatchObject({ ok: false, statusCode: null, errorClass: 'connect' });
    expect(refused.json<{ error: string }>().error).toEqual(expect.any(String));
    expect(await subscription()).toEqual({ status: 'active', failing_since: null, consecutive_failures: 0 });
    receiver = await startReceiver();
  });

  it('Retry now takes no step of the schedule: the next automatic attempt stays where it was', async () => {
    let answers = 0;
    await setup(() => (++answers >= 4 ? { status: 200 } : { status: 500 }));
    await emit(h.database.db, h.clock.now());
    const start = h.clock.now();
    expect(await runOnce()).toBe(1);
    const [row] = await h.database.db.kysely.selectFrom('deliveries').select('id').execute();
    const id = row?.id ?? '';
    // Attempt 1 failed: the next one waits the first step, 5 minutes.
    expect(await delivery(id)).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      next_attempt_at: start + 5 * MINUTE,
    });

    h.clock.advance(MINUTE);
    const manual = await h.asAdmin().post(`/api/admin/v1/deliveries/${id}/send-now`);
    expect(manual.statusCode).toBe(202);
    // Sent before the answer (attempt 2, same webhook-id), failed, and the schedule has not moved.
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(id);
    expect(manual.json()).toMatchObject({
      status: 'pending',
      attemptCount: 2,
      lastStatusCode: 500,
      nextAttemptAt: new Date(start + 5 * MINUTE).toISOString(),
    });
    expect(await delivery(id)).toMatchObject({ attempt_count: 1, manual_attempts: 1, lease_owner: null });
    // A failed manual attempt is a failed attempt: counted in the run and the hour.
    expect(await subscription()).toMatchObject({ failing_since: start, consecutive_failures: 2 });

    // Not due before its time...
    h.clock.set(start + 5 * MINUTE - 1);
    expect(await runOnce()).toBe(0);
    // ...then attempt 3 (the schedule's second) fails and waits the second step, 34 minutes, not 2 hours.
    h.clock.set(start + 5 * MINUTE);
    expect(await runOnce()).toBe(1);
    expect(await delivery(id)).toMatchObject({
      status: 'pending',
      attempt_count: 2,
      next_attempt_at: start + 5 * MINUTE + 34 * MINUTE,
    });
    // A second Retry now succeeds: the delivery is done and the subscription healthy again.
    const done = await h.asAdmin().post(`/api/admin/v1/deliveries/${id}/send-now`);
    expect(done.json()).toMatchObject({ status: 'succeeded', attemptCount: 4, lastStatusCode: 200 });
    expect(await subscription()).toMatchObject({ failing_since: null, consecutive_failures: 0 });
    const detail = await h.asAdmin().get(`/api/admin/v1/deliveries/${id}`);
    expect(
      detail
        .json<{ attempts: { attemptNo: number; statusCode: number }[] }>()
        .attempts.map((a) => [a.attemptNo, a.statusCode]),
    ).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 200],
    ]);
    // Finished: Retry now refuses (the finished delivery's control is retry).
    expect((await h.asAdmin().post(`/api/admin/v1/deliveries/${id}/send-now`)).statusCode).toBe(409);
  });

  it('every failed attempt writes one warn line: ids, attempt, status or error class, next attempt; no secret or body', async () => {
    await setup(() => ({ status: 503, body: `leaked ${'x'.repeat(10)}` }));
    await emit(h.database.db, h.clock.now());
    const start = h.clock.now();
    expect(await runOnce()).toBe(1);
    const [row] = await h.database.db.kysely.selectFrom('deliveries').select('id').execute();
    const id = row?.id ?? '';
    expect(warned).toEqual([
      {
        fields: {
          deliveryId: id,
          subscriptionId,
          attempt: 1,
          statusCode: 503,
          errorClass: 'http',
          nextAttemptAt: new Date(start + 5 * MINUTE).toISOString(),
          trigger: 'schedule',
        },
        message: `delivery attempt 1 failed (HTTP 503); next attempt: ${new Date(start + 5 * MINUTE).toISOString()}`,
      },
    ]);
    // A manual attempt's failure is logged by the process that sent it (the app's log), the same way.
    h.clock.advance(MINUTE);
    expect((await h.asAdmin().post(`/api/admin/v1/deliveries/${id}/send-now`)).statusCode).toBe(202);
    const manualLines = appLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.deliveryId === id);
    expect(manualLines).toEqual([
      expect.objectContaining({
        level: 40,
        deliveryId: id,
        subscriptionId,
        attempt: 2,
        statusCode: 503,
        errorClass: 'http',
        nextAttemptAt: new Date(start + 5 * MINUTE).toISOString(),
        trigger: 'manual',
      }),
    ]);
    // The schedule's attempts 2, 3 and 4; after the last the line says there is none.
    for (let attempt = 2; attempt <= 4; attempt++) {
      h.clock.set((await delivery(id)).next_attempt_at);
      expect(await runOnce()).toBe(1);
    }
    expect(warned).toHaveLength(4);
    expect(warned.at(-1)?.fields).toMatchObject({ attempt: 4, nextAttemptAt: null });
    expect(warned.at(-1)?.message).toBe(
      'delivery attempt 4 failed (HTTP 503); next attempt: none, the delivery failed',
    );
    const everything = JSON.stringify(warned) + appLines.join('\n');
    for (const secret of [client.webhookSecret, client.clientSecret, client.token, 'leaked', receiver.url, '"payload"'])
      expect(everything).not.toContain(secret);
  });
});
