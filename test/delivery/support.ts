/**
 * Test helpers for the delivery engine: a real node:http receiver on 127.0.0.1 that records every
 * request with its raw body, and direct writers for subscriptions and events.
 */

import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Updateable } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { DeliveryStore } from '../../src/delivery/store.js';
import type { DomainEvent } from '../../src/events/catalogue.js';
import { recordEventFor, recordEvents } from '../../src/events/outbox.js';
import { ids } from '../../src/ids.js';
import type { Harness } from '../support/harness.js';

export interface Received {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the connection is closed when the receiver closes). */
  hang?: boolean;
  delayMs?: number;
  /** Answer only once this settles (an attempt held open while the test acts). */
  after?: Promise<unknown>;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  respond: (request: Received, index: number) => Reply = () => ({}),
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        url: req.url ?? '/',
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = received.push(request) - 1;
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
      const reply = respond(request, index);
      if (reply.hang === true) return;
      const send = (): void => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? 'ok');
      };
      if (reply.after !== undefined) void reply.after.then(send);
      else if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Checks both signatures of a received webhook against the client's secret; throws when either is wrong. */
export function verifyWebhook(request: Received, secret: string): void {
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(request.body).digest('base64');
  if (request.headers['x-hook-signature'] !== expected) throw new Error('x-hook-signature does not match');
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  new Webhook(secret).verify(request.body, headers);
}

export async function addSubscription(
  db: Db,
  clientRef: string,
  url: string,
  now: number,
  event = 'list.updated',
): Promise<string> {
  const id = ids.subscription();
  await db.kysely
    .insertInto('subscriptions')
    .values({
      id,
      client_ref: clientRef,
      notification_url: url,
      event,
      event_as_given: event,
      status: 'active',
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export const listUpdated = (): DomainEvent => ({
  name: 'list.updated',
  type: 'updated',
  resource: 'list',
  identifier: ids.resourceIdentifier(),
});

/** Records `count` list.updated events (one delivery per matching subscription) in one transaction. */
export async function emit(db: Db, now: number, count = 1): Promise<DomainEvent[]> {
  const events = Array.from({ length: count }, listUpdated);
  await db.kysely.transaction().execute((trx) => recordEvents(trx, db.dialect, now, events));
  return events;
}

/**
 * One list.updated event for `subscriptionId` alone, its delivery ended as failed at `at` (with the
 * columns of `set` besides, e.g. its attempt count): the delivery's id.
 */
export async function addFailedDelivery(
  db: Db,
  subscriptionId: string,
  at: number,
  set: Updateable<Database['deliveries']> = {},
): Promise<string> {
  await db.kysely.transaction().execute((trx) => recordEventFor(trx, db.dialect, at, listUpdated(), [subscriptionId]));
  const row = await db.kysely
    .updateTable('deliveries')
    .set({ status: 'failed', completed_at: at, ...set })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** One pass of a delivery worker (jitter fixed at the middle), stopped afterwards: how many it claimed. */
export async function deliverOnce(h: Harness): Promise<number> {
  const worker = h.services.createDeliveryWorker({ random: () => 0.5, onError: () => undefined });
  try {
    return await worker.runOnce();
  } finally {
    await worker.stop();
  }
}

/** Each delivery's id with the payload of its event (what every attempt of it must carry). */
export async function payloadsByDelivery(db: Db): Promise<Map<string, string>> {
  const rows = await db.kysely
    .selectFrom('deliveries')
    .innerJoin('events', 'events.id', 'deliveries.event_id')
    .select(['deliveries.id', 'events.payload'])
    .execute();
  return new Map(rows.map((row) => [row.id, row.payload]));
}

/** Every request names a known delivery (its webhook-id) and carries exactly that delivery's payload. */
export function expectOwnPayloads(received: readonly Received[], payloadOf: ReadonlyMap<string, string>): void {
  for (const request of received) {
    const id = String(request.headers['webhook-id']);
    expect(payloadOf.has(id)).toBe(true);
    expect(request.body).toBe(payloadOf.get(id));
  }
}

/** How many deliveries have this status. */
export async function countDeliveries(db: Db, status: 'pending' | 'succeeded' | 'failed'): Promise<number> {
  const row = await db.kysely
    .selectFrom('deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deliveryRows(db: Db) {
  return db.kysely.selectFrom('deliveries').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function attemptRows(db: Db, deliveryId?: string) {
  let query = db.kysely.selectFrom('delivery_attempts').selectAll();
  if (deliveryId !== undefined) query = query.where('delivery_id', '=', deliveryId);
  return query.orderBy('attempt_no').execute();
}

/**
 * Records one attempt at a delivery through the worker's own completion path (completeMany), as if a
 * worker had claimed it: the counters and the subscription's health are kept exactly as in production.
 */
export async function recordAttempt(
  db: Db,
  deliveryId: string,
  at: number,
  outcome: { statusCode: number; status: 'pending' | 'succeeded' | 'failed'; nextAttemptAt?: number },
): Promise<void> {
  const owner = 'test-recorder';
  const row = await db.kysely
    .updateTable('deliveries')
    .set({ lease_owner: owner, lease_until: at + 60_000 })
    .where('id', '=', deliveryId)
    .returning(['subscription_id', 'attempt_count'])
    .executeTakeFirstOrThrow();
  const ok = outcome.statusCode >= 200 && outcome.statusCode < 300;
  const [result] = await new DeliveryStore(db).completeMany([
    {
      id: deliveryId,
      owner,
      subscriptionId: row.subscription_id,
      now: at,
      attempt: {
        attemptNo: row.attempt_count + 1,
        startedAt: at,
        durationMs: 1,
        statusCode: outcome.statusCode,
        errorClass: ok ? null : 'http',
        errorMessage: null,
        responseBody: '',
      },
      status: outcome.status,
      nextAttemptAt: outcome.nextAttemptAt ?? at,
      failingCutoff: 0,
    },
  ]);
  expect(result?.recorded).toBe(true);
}
