/**
 * Every event name, in both spellings, through the public subscription API, admin changes of schools
 * and lists, the worker and a real receiver on loopback: each subscription receives exactly the
 * payloads of its event, with the right type, resource and identifier, signed both ways.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { ACCEPTED_EVENT_SPELLINGS as ALL_SPELLINGS, canonicalEvent, EVENTS } from '../../src/events/catalogue.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { type Receiver, startReceiver, verifyWebhook } from './support.js';

/**
 * The events school and list changes emit. Offer events have their own end-to-end test
 * (test/offers/events.e2e.test.ts); subscription.failing and .disabled concern the client's own
 * subscriptions and are covered in subscription-health.e2e.test.ts.
 */
const SPELLINGS = ALL_SPELLINGS.filter((spelling) => {
  const name = canonicalEvent(spelling);
  return name !== undefined && (EVENTS[name].resource === 'school' || EVENTS[name].resource === 'list');
});

describeEachEngine('every event in both spellings, end to end', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true } });
  let receiver: Receiver;
  let worker: DeliveryWorker;

  beforeEach(async () => {
    h.clock.set(Date.now()); // the receiver's standardwebhooks check compares with real time
    receiver = await startReceiver();
    worker = h.services.createDeliveryWorker({ onError: () => undefined });
  });
  afterEach(async () => {
    await worker.stop();
    await receiver.close();
  });

  it('delivers the right type, resource and identifier to each of the twelve subscriptions', async () => {
    const client = await createClientWithToken(h);
    expect(SPELLINGS).toHaveLength(12);
    for (const spelling of SPELLINGS) {
      const created = await h
        .as(client)
        .post('/api/lml/v1/subscriptions', { notificationUrl: `${receiver.url}?as=${spelling}`, event: spelling });
      expect(created.statusCode).toBe(201);
      expect(created.json().event).toBe(spelling);
    }

    const admin = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
      const response = await h.asAdmin().request(method, `/api/admin/v1${url}`, payload);
      expect(response.statusCode, response.body).toBeLessThan(300);
      h.clock.advance(1000);
      await worker.runOnce();
      return response.json<{ identifier: string }>();
    };
    const school = (await admin('POST', '/schools', { name: 'Stedelijk Gymnasium', type: 'VO' })).identifier;
    await admin('PATCH', `/schools/${school}`, { name: 'Stedelijk Gymnasium Leiden' });
    const list = (
      await admin('POST', '/lists', {
        school,
        name: 'Klas 1',
        items: [{ ean: '9789001891442', title: 'Getal & Ruimte' }],
      })
    ).identifier;
    await admin('PATCH', `/lists/${list}`, { name: 'Klas 1 gymnasium' });
    await admin('POST', `/lists/${list}/status`, { status: 'validated' });
    await admin('POST', `/lists/${list}/status`, { status: 'published' });

    const expected: Record<string, { type: string; resource: string; identifier: string }[]> = {
      'school.created': [{ type: 'created', resource: 'school', identifier: school }],
      'school.modified': [{ type: 'modified', resource: 'school', identifier: school }],
      'list.created': [{ type: 'created', resource: 'list', identifier: list }],
      'list.updated': [{ type: 'updated', resource: 'list', identifier: list }],
      'list.status': ['created', 'validated', 'published'].map((type) => ({
        type,
        resource: 'list',
        identifier: list,
      })),
      'list.published': [{ type: 'published', resource: 'list', identifier: list }],
    };
    const total = Object.values(expected).reduce((sum, payloads) => sum + payloads.length, 0) * 2;
    expect(receiver.received).toHaveLength(total);

    for (const spelling of SPELLINGS) {
      const canonical = canonicalEvent(spelling) ?? '';
      const got = receiver.received.filter((request) => request.url === `/hooks?as=${spelling}`);
      expect(
        got.map((request) => JSON.parse(request.body)),
        spelling,
      ).toEqual(expected[canonical]);
      for (const request of got) {
        // Body bytes exactly {"type","resource","identifier"} in that order.
        const payload = JSON.parse(request.body) as { type: string; resource: string; identifier: string };
        expect(request.body).toBe(
          JSON.stringify({ type: payload.type, resource: payload.resource, identifier: payload.identifier }),
        );
        expect(request.headers['x-hook-event']).toBe(canonical);
        expect(payload.identifier).toMatch(/^[0-9a-f]{32}$/);
        verifyWebhook(request, client.webhookSecret);
      }
    }
  });
});
