/**
 * What the operator and the partner are shown of an attempt is the request the receiver got: every
 * header the worker set (x-hook-event-id among them), the signatures masked, and the body byte for
 * byte. Compared with what a real receiver recorded, on both engines.
 */
import { afterEach, expect, it } from 'vitest';
import { MASKED_SIGNATURE } from '../../src/delivery/sent-request.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness, type Harness } from '../support/harness.js';
import { addSubscription, deliverOnce, emit, type Receiver, startReceiver } from './support.js';

/** Headers the HTTP client adds to any request: the connection's, not the webhook's. */
const TRANSPORT = new Set(['host', 'connection', 'content-length', 'keep-alive']);

describeEachEngine('the request an attempt sent, as the log shows it', (engine) => {
  let h: Harness;
  let receiver: Receiver;
  afterEach(async () => {
    await receiver.close();
    await h.close();
  });

  it('every header the receiver got, signatures masked, and the exact body, in the console and the portal', async () => {
    h = await createHarness(engine, { webhookAllowPrivate: true });
    h.clock.set(Date.now());
    receiver = await startReceiver();
    const shop = await createClientWithToken(h, 'Shop');
    const subscriptionId = await addSubscription(h.database.db, shop.id, receiver.url, h.clock.now());
    await emit(h.database.db, h.clock.now());
    await deliverOnce(h);
    const [got] = receiver.received;
    if (got === undefined) throw new Error('nothing was delivered');

    const page = await h.asAdmin().get('/api/admin/v1/deliveries', { query: { subscriptionId } });
    const [delivery] = page.json<{ data: { id: string }[] }>().data;
    const detail = await h.asAdmin().get(`/api/admin/v1/deliveries/${delivery?.id}`);
    const [attempt] = detail.json<{
      attempts: { requestHeaders: Record<string, string>; requestBody: string }[];
    }>().attempts;
    const sent = Object.fromEntries(
      Object.entries(got.headers)
        .filter(([name]) => !TRANSPORT.has(name))
        .map(([name, value]) => [
          name,
          name === 'x-hook-signature' || name === 'webhook-signature' ? MASKED_SIGNATURE : String(value),
        ]),
    );
    expect(attempt?.requestHeaders).toEqual(sent);
    expect(Object.keys(sent).sort()).toEqual([
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-hook-event',
      'x-hook-event-id',
      'x-hook-signature',
    ]);
    expect(attempt?.requestBody).toBe(got.body);
    expect(detail.body).not.toContain(shop.webhookSecret.slice('whsec_'.length));

    const link = await h.asAdmin().post(`/api/admin/v1/clients/${shop.id}/portal-link`);
    const signIn = await h
      .anonymous()
      .post('/portal/api/sign-in', { token: link.json<{ path: string }>().path.split('#')[1] });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    const portal = await h.anonymous().get(`/portal/api/deliveries/${delivery?.id}`, { headers: { cookie } });
    expect(portal.json<{ attempts: unknown[] }>().attempts).toEqual(detail.json<{ attempts: unknown[] }>().attempts);
  });
});
