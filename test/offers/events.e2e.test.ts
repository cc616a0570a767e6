/**
 * Offer events end to end, on both engines: the API over a real socket, the worker, a real
 * receiver on loopback. Every write path (admin API, CSV import) announces offer.published,
 * offer.updated and offer.status through the outbox; filters by EANs and by a list's current items
 * decide who receives them; a draft's withdrawal and non-public changes announce nothing.
 */

import { afterEach, beforeEach, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { OfferImporter, parseOffersCsv } from '../../src/offers/import.js';
import { type Receiver, startReceiver, verifyWebhook } from '../delivery/support.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN, createClientWithToken } from '../support/harness.js';
import { problem } from '../support/problem.js';
import { useHarness } from '../support/use-harness.js';

const MATH = '9789001891442';
const ENGLISH = '9780194837125';
const PHYSICS = '9789034523716';
const HEX32 = /^[0-9a-f]{32}$/;

const byContent = (a: Payload, b: Payload): number =>
  JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;

interface Payload {
  type: string;
  resource: string;
  identifier: string;
}

describeEachEngine('offer events, end to end', (engine) => {
  const h = useHarness(engine, { config: { webhookAllowPrivate: true } });
  let base: string;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let client: Awaited<ReturnType<typeof createClientWithToken>>;

  const call = async (method: string, path: string, body?: object, token = `Bearer ${ADMIN_TOKEN}`) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  const admin = async (method: string, path: string, body?: object) => {
    const response = await call(method, `/api/admin/v1${path}`, body);
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
    return response.body;
  };
  const subscribe = (event: string, tag: string, filter?: object) =>
    call(
      'POST',
      '/api/lml/v1/subscriptions',
      { notificationUrl: `${receiver.url}?to=${tag}`, event, ...(filter === undefined ? {} : { filter }) },
      client.bearer.authorization,
    );
  /** Runs the worker until nothing is due, then answers the payloads each tag received. */
  const drain = async (): Promise<Record<string, Payload[]>> => {
    h.clock.advance(1000);
    while ((await worker.runOnce()) > 0) h.clock.advance(1000);
    const byTag: Record<string, Payload[]> = {};
    for (const request of receiver.received) {
      verifyWebhook(request, client.webhookSecret);
      const tag = new URL(request.url, 'http://x').searchParams.get('to') ?? '';
      byTag[tag] = [...(byTag[tag] ?? []), JSON.parse(request.body) as Payload];
    }
    receiver.received.length = 0;
    // Deliveries run concurrently, so arrival order is not event order: compare in a fixed order.
    for (const payloads of Object.values(byTag)) payloads.sort(byContent);
    return byTag;
  };
  /** The payloads in the order drain() answers them. */
  const sorted = (...payloads: Payload[]): Payload[] => payloads.sort(byContent);
  const payload = (type: string, identifier: string): Payload => ({ type, resource: 'offer', identifier });

  beforeEach(async () => {
    h.clock.set(Date.now()); // the receiver's standardwebhooks check compares with real time
    base = await h.listen();
    receiver = await startReceiver();
    worker = h.services.createDeliveryWorker({ onError: () => undefined });
    client = await createClientWithToken(h);
  });
  afterEach(async () => {
    await worker.stop();
    await receiver.close();
  });

  it('admin API: published, updated on public changes only, status; a draft withdrawn emits nothing', async () => {
    for (const [event, tag] of [
      ['offer.published', 'published'],
      ['offer-updated', 'updated'],
      ['offer.status', 'status'],
    ])
      expect((await subscribe(event as string, tag as string)).status).toBe(201);

    const offer = await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good' });
    expect(offer.identifier).toMatch(HEX32);
    const id = offer.identifier as string;
    expect(await drain()).toEqual({ published: [payload('published', id)], status: [payload('published', id)] });

    await admin('PATCH', `/offers/${offer.id}`, { price: 11 });
    await admin('PATCH', `/offers/${offer.id}`, { remarks: 'Name on page 1' });
    await admin('PATCH', `/offers/${offer.id}`, { price: 11 }); // no change: nothing to announce
    expect(await drain()).toEqual({ updated: [payload('updated', id), payload('updated', id)] });

    await admin('PATCH', `/offers/${offer.id}`, { status: 'reserved', price: 12 }); // not published: no updated
    await admin('PATCH', `/offers/${offer.id}`, { status: 'published' });
    await admin('PATCH', `/offers/${offer.id}`, { status: 'sold' });
    expect(await drain()).toEqual({
      published: [payload('published', id)],
      status: sorted(...['reserved', 'published', 'sold'].map((type) => payload(type, id))),
    });

    // A draft is nobody's business: created, changed and withdrawn without a word.
    const draft = await admin('POST', '/offers', { ean: MATH, price: 5, condition: 'good', status: 'draft' });
    await admin('PATCH', `/offers/${draft.id}`, { price: 6 });
    await admin('PATCH', `/offers/${draft.id}`, { status: 'withdrawn' });
    expect(await drain()).toEqual({});

    // A published offer withdrawn, and a deleted published offer, are announced as withdrawn.
    const other = await admin('POST', '/offers', { ean: ENGLISH, price: 7, condition: 'acceptable' });
    const gone = await admin('POST', '/offers', { ean: ENGLISH, price: 8, condition: 'good' });
    await drain();
    await admin('PATCH', `/offers/${other.id}`, { status: 'withdrawn' });
    await admin('PATCH', `/offers/${other.id}`, { status: 'draft' }); // already withdrawn to buyers: nothing
    await admin('PATCH', `/offers/${other.id}`, { status: 'published' });
    await admin('DELETE', `/offers/${gone.id}`);
    expect(await drain()).toEqual({
      published: [payload('published', other.identifier)],
      status: sorted(
        payload('withdrawn', other.identifier),
        payload('published', other.identifier),
        payload('withdrawn', gone.identifier),
      ),
    });
  });

  it('filters: by EANs, and by a list that follows its later edits', async () => {
    const school = (await admin('POST', '/schools', { name: 'Stedelijk Gymnasium', type: 'VO' })).identifier;
    const list = (
      await admin('POST', '/lists', { school, name: 'Klas 1', items: [{ ean: ENGLISH, title: 'English File' }] })
    ).identifier as string;
    const byEans = await subscribe('offer.published', 'eans', { eans: [MATH, ` ${PHYSICS} `, MATH] });
    expect(byEans.status).toBe(201);
    expect(byEans.body.filter).toEqual({ eans: [MATH, PHYSICS] });
    const byList = await subscribe('offer-published', 'list', { list });
    expect(byList.status).toBe(201);
    expect(byList.body.filter).toEqual({ list });
    expect(
      (await call('GET', `/api/lml/v1/subscriptions/${byList.body.id}`, undefined, client.bearer.authorization)).body
        .filter,
    ).toEqual({ list });
    expect((await subscribe('offer.published', 'all')).status).toBe(201);
    await drain();

    const math = await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good' });
    const english = await admin('POST', '/offers', { ean: ENGLISH, price: 10, condition: 'good' });
    const physics = await admin('POST', '/offers', { ean: PHYSICS, price: 10, condition: 'good' });
    expect(await drain()).toEqual({
      eans: sorted(payload('published', math.identifier), payload('published', physics.identifier)),
      list: [payload('published', english.identifier)],
      all: sorted(...[math, english, physics].map((offer) => payload('published', offer.identifier))),
    });

    // The list now holds MATH instead of ENGLISH: the list filter follows at once.
    await admin('PATCH', `/lists/${list}`, { items: [{ ean: MATH, title: 'Getal & Ruimte' }] });
    await drain();
    const math2 = await admin('POST', '/offers', { ean: MATH, price: 9, condition: 'good' });
    await admin('POST', '/offers', { ean: ENGLISH, price: 9, condition: 'good', status: 'draft' });
    const english2 = await admin('POST', '/offers', { ean: ENGLISH, price: 9, condition: 'good' });
    expect(await drain()).toEqual({
      eans: [payload('published', math2.identifier)],
      list: [payload('published', math2.identifier)],
      all: sorted(payload('published', math2.identifier), payload('published', english2.identifier)),
    });
  });

  it('CSV import: 1,200 rows in batches with their events, filtered, and updated on a second run', async () => {
    expect((await subscribe('offer.published', 'all')).status).toBe(201);
    expect((await subscribe('offer.published', 'math', { eans: [MATH] })).status).toBe(201);
    expect((await subscribe('offer.updated', 'updated')).status).toBe(201);
    expect((await subscribe('offer.status', 'status', { eans: [ENGLISH] })).status).toBe(201);
    const eans = [MATH, ENGLISH, PHYSICS];
    const csv = (price: (i: number) => string) =>
      `ean,price,condition,status,key\n${Array.from(
        { length: 1200 },
        (_, i) => `${eans[i % 3]},${price(i)},good,${i % 100 === 99 ? 'draft' : 'published'},k${i}`,
      ).join('\n')}\n`;
    const { rows, errors } = parseOffersCsv(csv((i) => `${5 + (i % 7)}.50`));
    expect(errors).toEqual([]);
    const importer = new OfferImporter(h.services.work, h.clock);
    expect(await importer.import(rows, { initiator: SYSTEM, file: 'offers.csv' }, () => undefined, 500)).toEqual({
      rows: 1200,
      created: 1200,
      updated: 0,
      unchanged: 0,
    });
    const events = await h.database.db.kysely.selectFrom('events').select(['name']).execute();
    // 1,188 published rows: offer.published and offer.status each; drafts announce nothing.
    expect(events.filter((event) => event.name === 'offer.published')).toHaveLength(1188);
    expect(events.filter((event) => event.name === 'offer.status')).toHaveLength(1188);
    const first = await drain();
    expect(first.all).toHaveLength(1188);
    expect(first.math).toHaveLength(396);
    expect(first.status).toHaveLength(396);
    expect(first.updated).toBeUndefined();
    const identifiers = new Set(first.all?.map((p) => p.identifier));
    expect(identifiers.size).toBe(1188);

    // Second run: rows 0..9 change price (public), row 99 (a draft) changes too: 10 offer.updated.
    const second = parseOffersCsv(csv((i) => (i < 10 || i === 99 ? '20.00' : `${5 + (i % 7)}.50`)));
    expect(await importer.import(second.rows, { initiator: SYSTEM, file: 'offers.csv' }, () => undefined, 500)).toEqual(
      {
        rows: 1200,
        created: 0,
        updated: 11,
        unchanged: 1189,
      },
    );
    const again = await drain();
    expect(Object.keys(again)).toEqual(['updated']);
    expect(again.updated).toHaveLength(10);
  });

  it('answers the identifier everywhere and finds an offer by it', async () => {
    const offer = await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good' });
    const bearer = client.bearer.authorization;
    const byIdentifier = await call('GET', `/api/v1/offers/${offer.identifier}`, undefined, bearer);
    expect(byIdentifier.status).toBe(200);
    expect(byIdentifier.body).toEqual((await call('GET', `/api/v1/offers/${offer.id}`, undefined, bearer)).body);
    expect(byIdentifier.body.identifier).toBe(offer.identifier);
    expect((await call('GET', `/api/v1/offers?eans=${MATH}`, undefined, bearer)).body[0].identifier).toBe(
      offer.identifier,
    );
    expect((await admin('GET', `/offers/${offer.identifier}`)).id).toBe(offer.id);
    expect((await call('GET', `/api/v1/offers/${'0'.repeat(32)}`, undefined, bearer)).status).toBe(404);
    const school = (await admin('POST', '/schools', { name: 'Stedelijk Gymnasium', type: 'VO' })).identifier;
    const list = await admin('POST', '/lists', { school, name: 'Klas 1', items: [{ ean: MATH, title: 'G&R' }] });
    const priced = await call('GET', `/api/v1/lists/${list.identifier}/offers`, undefined, bearer);
    expect(priced.body.items[0].offers[0].identifier).toBe(offer.identifier);
  });

  it('refuses bad filters with problems that say why', async () => {
    /** The 400 answer to a filter refused by validation, its one error naming `path`. */
    const validationFailed = (detail: string, path: string) => ({
      status: 400,
      body: problem('validation-failed', 400, 'Request validation failed', detail, {
        errors: [{ location: 'body', path, message: detail }],
      }),
    });
    const school = (await admin('POST', '/schools', { name: 'Stedelijk Gymnasium', type: 'VO' })).identifier;
    const list = (await admin('POST', '/lists', { school, name: 'Klas 1', items: [] })).identifier;
    const badEan = await subscribe('offer.published', 'x', { eans: [MATH, '9789001891443', 'abc'] });
    expect(badEan).toEqual({
      status: 400,
      body: {
        type: '/problems/invalid-ean',
        title: 'One or more EAN codes are invalid',
        status: 400,
        instance: expect.any(String),
        detail:
          'invalid EAN codes: 9789001891443 (check digit should be 2), abc (contains characters other than digits)',
        code: 'invalid-ean',
        invalidEans: [
          { ean: '9789001891443', reason: 'check digit should be 2' },
          { ean: 'abc', reason: 'contains characters other than digits' },
        ],
      },
    });
    const detail =
      'a filter applies to offer events only (offer.published, offer.updated, offer.status), not to list.published';
    expect(await subscribe('list-published', 'x', { list })).toEqual(validationFailed(detail, '/filter'));
    const unknown = `filter.list "${'a'.repeat(32)}" is not the identifier of a list`;
    expect(await subscribe('offer.status', 'x', { list: 'a'.repeat(32) })).toEqual(
      validationFailed(unknown, '/filter/list'),
    );
    const tooMany = await subscribe('offer.status', 'x', { eans: Array.from({ length: 501 }, () => MATH) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe('validation-failed');
    expect((await subscribe('offer.status', 'x', { eans: [] })).body.code).toBe('validation-failed');
    // The same URL and event again with another filter is a conflict, with the same filter a repeat.
    expect((await subscribe('offer.status', 'same', { eans: [MATH] })).status).toBe(201);
    expect((await subscribe('offer.status', 'same', { eans: [MATH] })).status).toBe(200);
    expect((await subscribe('offer.status', 'same', { list })).body.code).toBe('conflict');
    expect(await h.database.db.kysely.selectFrom('subscriptions').select('id').execute()).toHaveLength(1);
  });
});
