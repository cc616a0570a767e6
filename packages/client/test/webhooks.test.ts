/**
 * The receiver kit against real webhooks: the Shelfmark worker delivers over loopback (signed by the
 * server's own signer) to receivers built with the kit for node:http, Express and Fastify.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { DeliveryWorker } from '../../../src/delivery/worker.js';
import { describeEachEngine } from '../../../test/support/engines.js';
import {
  expressWebhookHandler,
  fastifyWebhookPlugin,
  nodeWebhookHandler,
  ShelfmarkClient,
  verifyWebhook,
  WebhookDeduplicator,
  type WebhookEvent,
  type WebhookHandlerOptions,
  WebhookVerificationError,
} from '../src/index.js';
import { type Served, serve } from './support.js';

interface Captured {
  headers: IncomingHttpHeaders;
  body: Buffer;
  status: number;
}

interface KitReceiver {
  url: string;
  events: WebhookEvent[];
  refused: unknown[];
  captured: Captured[];
  close(): Promise<void>;
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
};
const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A node:http receiver made with the kit; it also records each raw request and the status it answered. */
async function kitReceiver(options: Omit<WebhookHandlerOptions, 'onEvent' | 'onError'>): Promise<KitReceiver> {
  const events: WebhookEvent[] = [];
  const refused: unknown[] = [];
  const captured: Captured[] = [];
  const handler = nodeWebhookHandler({
    ...options,
    onEvent: (event) => void events.push(event),
    onError: (error) => void refused.push(error),
  });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    const entry: Captured = { headers: request.headers, body: Buffer.alloc(0), status: 0 };
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      entry.body = Buffer.concat(chunks);
    });
    response.on('finish', () => {
      entry.status = response.statusCode;
      captured.push(entry);
    });
    handler(request, response);
  });
  const url = await listen(server);
  return { url, events, refused, captured, close: () => closeServer(server) };
}

/** Sends a captured request again, optionally changed, to a receiver. */
const replay = (
  url: string,
  captured: Captured,
  change: { body?: string; headers?: Record<string, string | undefined> } = {},
) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...captured.headers, ...change.headers })) {
    if (value !== undefined && !['host', 'content-length', 'connection'].includes(name)) headers[name] = String(value);
  }
  return fetch(url, { method: 'POST', headers, body: change.body ?? captured.body });
};

describeEachEngine('webhook receiver kit with real deliveries', (engine) => {
  let s: Served;
  let credentials: { id: string; clientId: string; clientSecret: string; webhookSecret: string };
  let sdk: ShelfmarkClient;
  let worker: DeliveryWorker;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    s = await serve(engine, { webhookAllowPrivate: true, webhookRetryScheduleSeconds: [1], webhookTimeoutMs: 2000 });
    // Real time: the receivers check webhook-timestamp against their own clock.
    s.h.clock.set(Date.now());
    credentials = await s.newClient();
    sdk = new ShelfmarkClient({
      baseUrl: s.url,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
    });
    worker = s.h.services.createDeliveryWorker({ random: () => 0.5, onError: () => undefined });
  });
  afterEach(async () => {
    await worker.stop();
    for (const close of closers.splice(0)) await close();
    await s.h.close();
  });

  const receiver = async (options: Omit<WebhookHandlerOptions, 'onEvent' | 'onError'>): Promise<KitReceiver> => {
    const made = await kitReceiver(options);
    closers.push(made.close);
    return made;
  };
  const createSchool = async (name = 'Het Lyceum'): Promise<string> => {
    const created = await s.admin('POST', '/schools', { name, type: 'VO' });
    expect(created.statusCode).toBe(201);
    return created.json<{ identifier: string }>().identifier;
  };
  const deliveries = () =>
    s.h.database.db.kysely.selectFrom('deliveries').selectAll().orderBy('created_at').orderBy('id').execute();

  it('a good delivery is verified, answered 204 at once and handed over as the typed event', async () => {
    const r = await receiver({ secret: credentials.webhookSecret });
    const subscription = await sdk.subscriptions.create({ notificationUrl: r.url, event: 'school-created' });
    const identifier = await createSchool();
    expect(await worker.runOnce()).toBe(1);
    const [delivery] = await deliveries();
    await vi.waitFor(() => expect(r.events).toHaveLength(1));
    expect(r.events[0]).toEqual({
      type: 'created',
      resource: 'school',
      identifier,
      event: 'school.created',
      id: delivery!.id,
      eventId: delivery!.event_id,
    });
    expect(r.captured.map((c) => c.status)).toEqual([204]);
    expect(delivery).toMatchObject({
      subscription_id: subscription.id,
      status: 'succeeded',
      attempt_count: 1,
      last_status_code: 204,
    });
    expect(r.refused).toEqual([]);

    // The same request through verifyWebhook directly, with Web Headers this time.
    const event = await verifyWebhook({
      rawBody: r.captured[0]!.body,
      headers: new Headers(r.captured[0]!.headers as Record<string, string>),
      secret: credentials.webhookSecret,
    });
    expect(event).toEqual(r.events[0]);
  });

  it('a tampered body is refused with 401 invalid-signature, by the adapter and by verifyWebhook', async () => {
    const r = await receiver({ secret: credentials.webhookSecret });
    await sdk.subscriptions.create({ notificationUrl: r.url, event: 'school-created' });
    const identifier = await createSchool();
    await worker.runOnce();
    const good = r.captured[0]!;
    const tampered = good.body.toString('utf8').replace(identifier, 'f'.repeat(32));
    const answer = await replay(r.url, good, { body: tampered });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({
      error: 'invalid-signature',
      message: 'webhook-signature does not match the body with any of the given secrets',
    });
    // Without the Standard Webhooks headers, the seed's x-hook-signature alone catches it too.
    const seedOnly = await replay(r.url, good, {
      body: tampered,
      headers: { 'webhook-id': undefined, 'webhook-timestamp': undefined, 'webhook-signature': undefined },
    });
    expect(seedOnly.status).toBe(401);
    expect(await seedOnly.json()).toMatchObject({
      error: 'invalid-signature',
      message: 'x-hook-signature does not match the body with any of the given secrets',
    });
    // And the untouched seed-only request passes on x-hook-signature alone.
    const seedGood = await replay(r.url, good, {
      headers: { 'webhook-id': undefined, 'webhook-timestamp': undefined, 'webhook-signature': undefined },
    });
    expect(seedGood.status).toBe(204);
    await vi.waitFor(() => expect(r.events).toHaveLength(2));
    expect(r.events[1]).toMatchObject({ identifier, id: undefined, event: 'school.created' });
    await expect(
      verifyWebhook({ rawBody: tampered, headers: good.headers, secret: credentials.webhookSecret }),
    ).rejects.toMatchObject({ reason: 'invalid-signature' });
  });

  it('a receiver holding the wrong secret answers 401, so the server records a failed attempt and retries', async () => {
    const other = await s.newClient('another shop');
    const r = await receiver({ secret: other.webhookSecret });
    await sdk.subscriptions.create({ notificationUrl: r.url, event: 'school-created' });
    await createSchool();
    await worker.runOnce();
    expect(r.captured.map((c) => c.status)).toEqual([401]);
    expect(r.events).toEqual([]);
    expect(r.refused).toHaveLength(1);
    expect(r.refused[0]).toBeInstanceOf(WebhookVerificationError);
    expect(r.refused[0]).toMatchObject({ reason: 'invalid-signature' });
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      last_status_code: 401,
      last_error_class: 'http',
    });
  });

  it('a stale webhook-timestamp (a delivery signed 10 minutes ago) is refused; a wider tolerance accepts it', async () => {
    const r = await receiver({ secret: credentials.webhookSecret, toleranceSeconds: 300 });
    await sdk.subscriptions.create({ notificationUrl: r.url, event: 'school-created' });
    s.h.clock.set(Date.now() - 600_000); // the server signs with its clock: 10 minutes behind the receiver
    await createSchool();
    expect(await worker.runOnce()).toBe(1);
    expect(r.captured.map((c) => c.status)).toEqual([401]);
    expect(r.refused[0]).toMatchObject({ reason: 'stale-timestamp' });
    expect((r.refused[0] as Error).message).toMatch(
      /^webhook-timestamp is 60\d s from now, beyond the tolerance of 300 s$/,
    );
    const event = await verifyWebhook({
      rawBody: r.captured[0]!.body,
      headers: r.captured[0]!.headers,
      secret: credentials.webhookSecret,
      toleranceSeconds: 900,
    });
    expect(event.resource).toBe('school');
  });

  it('during a secret rotation the overlap lets receivers with the old, the new or both secrets verify', async () => {
    const oldSecret = credentials.webhookSecret;
    const oldOnly = await receiver({ secret: oldSecret });
    await sdk.subscriptions.create({ notificationUrl: oldOnly.url, event: 'school-created' });
    const rotated = await sdk.subscriptions.rotateWebhookSecret();
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.previousSecretValidUntil)).toBeGreaterThan(s.h.clock.now());
    await createSchool();
    await worker.runOnce();
    // The receiver that still has only the old secret accepts the real delivery (webhook-signature carries both).
    expect(oldOnly.captured.map((c) => c.status)).toEqual([204]);
    await vi.waitFor(() => expect(oldOnly.events).toHaveLength(1));
    const request = oldOnly.captured[0]!;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secrets of [[rotated.webhookSecret], [rotated.webhookSecret, oldSecret], [oldSecret]]) {
      await expect(verifyWebhook({ rawBody: request.body, headers: request.headers, secrets })).resolves.toMatchObject({
        resource: 'school',
      });
    }
    const stranger = (await s.newClient('stranger')).webhookSecret;
    await expect(
      verifyWebhook({ rawBody: request.body, headers: request.headers, secrets: [stranger] }),
    ).rejects.toMatchObject({ reason: 'invalid-signature' });
    // x-hook-signature alone is made with the newest secret only.
    const seedHeaders = { 'x-hook-signature': String(request.headers['x-hook-signature']) };
    await expect(
      verifyWebhook({ rawBody: request.body, headers: seedHeaders, secret: rotated.webhookSecret }),
    ).resolves.toMatchObject({ resource: 'school' });
    await expect(
      verifyWebhook({ rawBody: request.body, headers: seedHeaders, secret: oldSecret }),
    ).rejects.toMatchObject({ reason: 'invalid-signature' });
  });

  it('a repeated webhook-id is answered 204 but handed over once (de-duplication)', async () => {
    const deduplicator = new WebhookDeduplicator();
    const r = await receiver({ secret: credentials.webhookSecret, deduplicator });
    await sdk.subscriptions.create({ notificationUrl: r.url, event: 'school-created' });
    await createSchool();
    await worker.runOnce();
    const again = await replay(r.url, r.captured[0]!);
    expect(again.status).toBe(204);
    await vi.waitFor(() => expect(r.captured).toHaveLength(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.events).toHaveLength(1);
    expect(deduplicator.size).toBe(1);
  });

  it('one deduplicator serves push and pull: an event read from the feed is skipped when its webhooks arrive', async () => {
    const deduplicator = new WebhookDeduplicator();
    const r = await receiver({ secret: credentials.webhookSecret, deduplicator });
    await sdk.subscriptions.create({ notificationUrl: r.url, event: 'school-created' });
    await sdk.subscriptions.create({ notificationUrl: `${r.url}?copy=2`, event: 'school.created' });
    const identifier = await createSchool();
    const page = await sdk.events.list({ types: 'school.created' });
    expect(page.data.map((item) => [item.event, item.identifier])).toEqual([['school.created', identifier]]);
    const pulled = page.data[0]!;
    expect(deduplicator.isDuplicate(pulled.id)).toBe(false);
    expect(await worker.runOnce()).toBe(2);
    await vi.waitFor(() => expect(r.captured).toHaveLength(2));
    // Each delivery has its own webhook-id; both carry the event's id, which the feed showed.
    expect(r.captured.map((c) => c.headers['x-hook-event-id'])).toEqual([pulled.id, pulled.id]);
    expect(new Set(r.captured.map((c) => c.headers['webhook-id'])).size).toBe(2);
    expect(r.captured.map((c) => c.status)).toEqual([204, 204]);
    expect(r.events).toEqual([]);
    expect(deduplicator.size).toBe(1);
  });

  it('a test ping through the SDK arrives verified, and the deliveries iterator shows both deliveries', async () => {
    const r = await receiver({ secret: credentials.webhookSecret });
    const subscription = await sdk.subscriptions.create({ notificationUrl: r.url, event: 'school-created' });
    await createSchool();
    await worker.runOnce();
    const ping = await sdk.subscriptions.ping(subscription.id);
    expect(ping).toMatchObject({ deliveryId: expect.stringMatching(/^dlv_/), ok: true, errorClass: null });
    await vi.waitFor(() => expect(r.events).toHaveLength(2));
    expect(r.events[1]).toEqual({
      type: 'ping',
      resource: 'subscription',
      identifier: expect.any(String),
      event: 'ping',
      id: ping.deliveryId,
      eventId: expect.stringMatching(/^evt_/),
    });
    const seen = [];
    for await (const delivery of sdk.subscriptions.deliveries(subscription.id, { limit: 1 }))
      seen.push([delivery.event, delivery.status, delivery.lastStatusCode]);
    expect(seen.sort()).toEqual([
      ['ping', 'succeeded', 204],
      ['school.created', 'succeeded', 204],
    ]);
    expect(s.count('GET', `/api/lml/v1/subscriptions/${subscription.id}/deliveries`)).toBe(2);
  });

  it('Express and Fastify receivers made with the adapters verify real deliveries and refuse forgeries', async () => {
    const expressEvents: WebhookEvent[] = [];
    const fastifyEvents: WebhookEvent[] = [];
    const quiet = { onError: () => undefined };

    const expressApp = express();
    expressApp.post(
      '/hooks',
      expressWebhookHandler({
        secret: credentials.webhookSecret,
        onEvent: (event) => void expressEvents.push(event),
        ...quiet,
      }),
    );
    expressApp.post(
      '/raw/hooks',
      express.raw({ type: '*/*' }),
      expressWebhookHandler({
        secret: credentials.webhookSecret,
        onEvent: (event) => void expressEvents.push(event),
        ...quiet,
      }),
    );
    expressApp.post(
      '/parsed/hooks',
      express.json(),
      expressWebhookHandler({ secret: credentials.webhookSecret, onEvent: () => undefined, ...quiet }),
    );
    const expressServer = createServer(expressApp);
    const expressUrl = await listen(expressServer);
    closers.push(() => closeServer(expressServer));

    const fastify = Fastify();
    await fastify.register(
      fastifyWebhookPlugin({
        path: '/hooks',
        secret: credentials.webhookSecret,
        onEvent: (event) => void fastifyEvents.push(event),
        ...quiet,
      }),
    );
    fastify.post('/echo', async (request) => request.body);
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    closers.push(() => fastify.close());
    const fastifyOrigin = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;

    const origin = new URL(expressUrl).origin;
    for (const url of [`${origin}/hooks`, `${origin}/raw/hooks`, `${fastifyOrigin}/hooks`])
      await sdk.subscriptions.create({ notificationUrl: url, event: 'school-created' });
    const identifier = await createSchool();
    expect(await worker.runOnce()).toBe(3);
    await vi.waitFor(() => expect(expressEvents.length + fastifyEvents.length).toBe(3));
    const rows = await deliveries();
    expect(rows.map((row) => [row.status, row.last_status_code])).toEqual([
      ['succeeded', 204],
      ['succeeded', 204],
      ['succeeded', 204],
    ]);
    for (const event of [...expressEvents, ...fastifyEvents])
      expect(event).toMatchObject({ type: 'created', resource: 'school', identifier, event: 'school.created' });

    // Forgeries: a body signed with another key.
    const forged = JSON.stringify({ type: 'created', resource: 'school', identifier: 'a'.repeat(32) });
    const headers = {
      'content-type': 'application/json',
      'x-hook-signature': Buffer.from('x'.repeat(32)).toString('base64'),
    };
    for (const url of [`${origin}/hooks`, `${origin}/raw/hooks`, `${fastifyOrigin}/hooks`]) {
      const answer = await fetch(url, { method: 'POST', headers, body: forged });
      expect(answer.status, url).toBe(401);
      expect(await answer.json()).toEqual({
        error: 'invalid-signature',
        message: 'x-hook-signature does not match the body with any of the given secrets',
      });
    }
    // A JSON parser in front of the handler makes verification impossible: said plainly, never accepted.
    const parsed = await fetch(`${origin}/parsed/hooks`, { method: 'POST', headers, body: forged });
    expect(parsed.status).toBe(500);
    expect(await parsed.json()).toMatchObject({ error: 'body-parsed' });
    // The plugin's raw-body parser stays inside its own context: the app's JSON routes still get objects.
    const echo = await fetch(`${fastifyOrigin}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await echo.json()).toEqual({ a: 1 });
    expect(expressEvents.length + fastifyEvents.length).toBe(3);
  });
});
