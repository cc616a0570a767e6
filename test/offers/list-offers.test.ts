/**
 * GET /api/v1/lists/:identifier/offers: a whole book list priced in one call, on both engines, with
 * exact bodies, the condition and limit rules, exact totals (a property test against a brute-force
 * join of the offers written), 404s, the bearer guard, and 304 over a real socket.
 */

import fc from 'fast-check';
import { beforeEach, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { seedDemoLml } from '../../src/lml/demo-lml.js';
import type { ListItemInput } from '../../src/lml/items.js';
import type { ListStatus } from '../../src/lml/status.js';
import { seedDemoOffers } from '../../src/offers/demo-offers.js';
import { OFFER_CONDITIONS, type OfferCondition, type OfferStatus } from '../../src/offers/model.js';
import type { AdminOffer } from '../../src/offers/schemas.js';
import type { CreateOfferInput } from '../../src/offers/service.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import { ENGLISH, HISTORY, MATH, PHYSICS } from './support.js';

const _ROUTE = '/api/v1/lists/:identifier/offers';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** The public shape of an offer under the default €1.99 fee. */
const pub = (offer: AdminOffer) => ({
  id: offer.id,
  identifier: offer.identifier,
  ean: offer.ean,
  price: (Math.round(offer.sellerPrice * 100) + 199) / 100,
  serviceFee: 1.99,
  currency: 'EUR',
  condition: offer.condition,
  remarks: offer.remarks,
});

const QUALITY: Record<OfferCondition, number> = { acceptable: 0, good: 1, excellent: 2 };

describeEachEngine('a whole book list priced in one call', (engine) => {
  const h = useHarness(engine, { client: true });
  let schoolId: string;

  const offer = (input: CreateOfferInput): Promise<AdminOffer> => h.services.offers.create(input, SYSTEM);
  const get = (url: string, headers = h.client.bearer) => h.anonymous().get(url, { headers });
  async function list(items: ListItemInput[], path: ListStatus[] = ['published'], name = 'vwo 5') {
    const created = await h.services.lists.create({ school: schoolId, name, items }, SYSTEM);
    for (const status of path) await h.services.lists.changeStatus(created.identifier, status, SYSTEM);
    return created.identifier;
  }

  beforeEach(async () => {
    schoolId = (await h.services.schools.create({ name: 'Erasmus Lyceum', type: 'VO' }, SYSTEM)).identifier;
  });

  it('answers the items in list order with their cheapest offers (then better condition, then id) and exact totals', async () => {
    const mathGood = await offer({ ean: MATH, price: 12.5, condition: 'good', remarks: 'Name on page 1' });
    const mathAcceptable = await offer({ ean: MATH, price: 12.5, condition: 'acceptable' });
    const mathExcellent = await offer({ ean: MATH, price: 12.5, condition: 'excellent' });
    const mathCheap = await offer({ ean: MATH, price: 8.01, condition: 'acceptable' });
    await offer({ ean: MATH, price: 1, condition: 'excellent', status: 'sold' });
    const english = await offer({ ean: ENGLISH, price: 10.1, condition: 'good' });
    await offer({ ean: PHYSICS, price: 3, condition: 'good', status: 'draft' });
    const identifier = await list([
      { ean: ENGLISH, title: 'Solutions Intermediate', mandatory: false },
      { ean: MATH, title: 'Getal & Ruimte 4' },
      { ean: PHYSICS, title: 'Nova Natuurkunde 3' },
      { ean: HISTORY, title: 'Geschiedeniswerkplaats', mandatory: false },
    ]);

    const response = await get(`/api/v1/lists/${identifier}/offers`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(response.json()).toEqual({
      list: { identifier, name: 'vwo 5', status: 'published' },
      items: [
        { ean: ENGLISH, title: 'Solutions Intermediate', mandatory: false, offers: [pub(english)] },
        {
          ean: MATH,
          title: 'Getal & Ruimte 4',
          mandatory: true,
          offers: [pub(mathCheap), pub(mathExcellent), pub(mathGood)],
        },
        { ean: PHYSICS, title: 'Nova Natuurkunde 3', mandatory: true, offers: [] },
        { ean: HISTORY, title: 'Geschiedeniswerkplaats', mandatory: false, offers: [] },
      ],
      summary: {
        items: 4,
        itemsWithOffers: 2,
        mandatoryItems: 2,
        mandatoryItemsWithOffers: 1,
        cheapestTotal: 22.09, // 12.09 + 10.00, summed in cents
        cheapestMandatoryTotal: 10,
        currency: 'EUR',
      },
    });
    // The offers have exactly the fields of every other offer answer, in the same order.
    expect(response.body).toContain(JSON.stringify(pub(mathCheap)));

    const more = await get(`/api/v1/lists/${identifier}/offers?limit=20`);
    expect(more.json().items[1].offers).toEqual([
      pub(mathCheap),
      pub(mathExcellent),
      pub(mathGood),
      pub(mathAcceptable),
    ]);
  });

  it('applies condition as a minimum and limit per item, and refuses values outside their range', async () => {
    const cheap = await offer({ ean: MATH, price: 5, condition: 'acceptable' });
    const good = await offer({ ean: MATH, price: 7, condition: 'good' });
    const excellent = await offer({ ean: MATH, price: 9, condition: 'excellent' });
    const englishAcceptable = await offer({ ean: ENGLISH, price: 4, condition: 'acceptable' });
    const identifier = await list([
      { ean: MATH, title: 'Maths' },
      { ean: ENGLISH, title: 'English' },
    ]);
    const url = `/api/v1/lists/${identifier}/offers`;
    const body = async (query: string) => (await get(`${url}${query}`)).json();

    expect((await body('?condition=good')).items).toEqual([
      { ean: MATH, title: 'Maths', mandatory: true, offers: [pub(good), pub(excellent)] },
      { ean: ENGLISH, title: 'English', mandatory: true, offers: [] },
    ]);
    expect((await body('?condition=good')).summary).toMatchObject({ itemsWithOffers: 1, cheapestTotal: 8.99 });
    expect((await body('?condition=excellent')).items[0].offers).toEqual([pub(excellent)]);
    expect((await body('?condition=acceptable')).items[1].offers).toEqual([pub(englishAcceptable)]);
    expect((await body('?limit=1')).items[0].offers).toEqual([pub(cheap)]);
    expect((await body('')).items[0].offers).toEqual([pub(cheap), pub(good), pub(excellent)]);
    expect((await body('?limit=1&condition=good')).summary).toMatchObject({
      itemsWithOffers: 1,
      cheapestTotal: 8.99,
      cheapestMandatoryTotal: 8.99,
    });

    for (const query of ['?limit=0', '?limit=21', '?limit=two', '?limit=1.5', '?condition=mint', '?condition=GOOD']) {
      const refused = await get(`${url}${query}`);
      expect(refused.statusCode, query).toBe(400);
      expect(refused.headers['content-type']).toBe(PROBLEM_TYPE);
      expect(refused.json().code).toBe('validation-failed');
    }
  });

  it('prices any list the LML API shows (created, validated, published) and answers 404 for archived and unknown lists', async () => {
    await offer({ ean: MATH, price: 5, condition: 'good' });
    const created = await list([{ ean: MATH, title: 'Maths' }], [], 'concept');
    const validated = await list([{ ean: MATH, title: 'Maths' }], ['validated'], 'checked');
    const archived = await list([{ ean: MATH, title: 'Maths' }], ['published', 'archived'], 'last year');
    expect((await get(`/api/v1/lists/${created}/offers`)).json().list).toEqual({
      identifier: created,
      name: 'concept',
      status: 'created',
    });
    expect((await get(`/api/v1/lists/${validated}/offers`)).json().list.status).toBe('validated');

    const slug = (await h.services.lists.get(created)).slug;
    for (const identifier of [archived, '0123456789abcdef0123456789abcdef', slug, 'nope', archived.toUpperCase()]) {
      const missing = await get(`/api/v1/lists/${identifier}/offers`);
      expect(missing.statusCode, identifier).toBe(404);
      expect(missing.headers['content-type']).toBe(PROBLEM_TYPE);
      expect(missing.json()).toMatchObject({ code: 'not-found', status: 404 });
    }
  });

  it('needs a bearer token with offers:read', async () => {
    const identifier = await list([{ ean: MATH, title: 'Maths' }]);
    const url = `/api/v1/lists/${identifier}/offers`;
    const anonymous = await get(url, {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthenticated');
    const listsOnly = (await createClientWithToken(h, 'Lists only', ['lml:read'])).bearer;
    const wrongScope = await get(url, listsOnly);
    expect(wrongScope.statusCode).toBe(403);
    expect(wrongScope.json().code).toBe('insufficient-scope');
  });

  it('answers 304 to a matching If-None-Match over a real socket, and a new tag once an offer changes', async () => {
    const math = await offer({ ean: MATH, price: 5, condition: 'good' });
    const identifier = await list([{ ean: MATH, title: 'Maths' }]);
    const url = `${await h.listen()}/api/v1/lists/${identifier}/offers`;
    const first = await fetch(url, { headers: h.client.bearer });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    const again = await fetch(url, { headers: { ...h.client.bearer, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    await h.services.offers.update(String(math.id), { price: 4 }, SYSTEM);
    const changed = await fetch(url, { headers: { ...h.client.bearer, 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(((await changed.json()) as { summary: { cheapestTotal: number } }).summary.cheapestTotal).toBe(5.99);
  });

  it('totals are exact: equal to a brute-force join of the offers written (property)', async () => {
    let run = 0;
    const offerArb = fc.record({
      ean: fc.nat(5),
      cents: fc.oneof(fc.constantFrom(1, 10, 29, 1000), fc.integer({ min: 1, max: 2_000_000 })),
      condition: fc.constantFrom(...OFFER_CONDITIONS),
      status: fc.constantFrom<OfferStatus>('published', 'published', 'published', 'draft', 'sold'),
    });
    const itemsArb = fc.uniqueArray(fc.record({ ean: fc.nat(5), mandatory: fc.boolean() }), {
      minLength: 1,
      maxLength: 6,
      selector: (item) => item.ean,
    });
    const queryArb = fc.record({
      condition: fc.option(fc.constantFrom(...OFFER_CONDITIONS), { nil: undefined }),
      limit: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(offerArb, { maxLength: 14 }), itemsArb, queryArb, async (offers, items, query) => {
        run++;
        // Fresh EANs per run, so earlier runs' offers never join in.
        const ean = (n: number) => eanOf(run * 10 + n);
        const written: AdminOffer[] = [];
        for (const o of offers) {
          written.push(
            await offer({ ean: ean(o.ean), price: o.cents / 100, condition: o.condition, status: o.status }),
          );
        }
        const identifier = await list(
          items.map((item) => ({ ean: ean(item.ean), title: `Book ${item.ean}`, mandatory: item.mandatory })),
        );
        const search = new URLSearchParams();
        if (query.condition !== undefined) search.set('condition', query.condition);
        if (query.limit !== undefined) search.set('limit', String(query.limit));
        const response = await get(`/api/v1/lists/${identifier}/offers?${search}`);
        expect(response.statusCode).toBe(200);

        const minimum = query.condition === undefined ? 0 : QUALITY[query.condition];
        const limit = query.limit ?? 3;
        const cents = (o: AdminOffer) => Math.round(o.sellerPrice * 100) + 199;
        let total = 0;
        let mandatoryTotal = 0;
        const expectedItems = items.map((item) => {
          const matching = written
            .filter((o) => o.ean === ean(item.ean) && o.status === 'published' && QUALITY[o.condition] >= minimum)
            .sort((a, b) => cents(a) - cents(b) || QUALITY[b.condition] - QUALITY[a.condition] || a.id - b.id);
          const cheapest = matching[0];
          if (cheapest !== undefined) {
            total += cents(cheapest);
            if (item.mandatory) mandatoryTotal += cents(cheapest);
          }
          return {
            ean: ean(item.ean),
            title: `Book ${item.ean}`,
            mandatory: item.mandatory,
            offers: matching.slice(0, limit).map(pub),
          };
        });
        const withOffers = expectedItems.filter((item) => item.offers.length > 0);
        expect(response.json()).toEqual({
          list: { identifier, name: 'vwo 5', status: 'published' },
          items: expectedItems,
          summary: {
            items: items.length,
            itemsWithOffers: withOffers.length,
            mandatoryItems: items.filter((item) => item.mandatory).length,
            mandatoryItemsWithOffers: withOffers.filter((item) => item.mandatory).length,
            cheapestTotal: total / 100,
            cheapestMandatoryTotal: mandatoryTotal / 100,
            currency: 'EUR',
          },
        });
        // Exact in the text too: at most 2 decimals, never a float sum like 22.099999999999998.
        const summary = /"cheapestTotal":([0-9.]+),"cheapestMandatoryTotal":([0-9.]+)/.exec(response.body);
        expect(summary?.[1]).toBe(String(total / 100));
        expect(summary?.[2]).toBe(String(mandatoryTotal / 100));
      }),
      { numRuns: 25 },
    );
    expect(run).toBe(25);
  }, 120_000);

  it('prices the demo list "vwo 4": offers at several prices and conditions, one item without offers', async () => {
    await seedDemoOffers(h.services, SYSTEM);
    await seedDemoLml(h.services, SYSTEM);
    const lists = (await get('/api/admin/v1/lists?limit=100', h.admin)).json().data as {
      identifier: string;
      name: string;
    }[];
    const vwo4 = lists.find((candidate) => candidate.name === 'vwo 4');
    expect(vwo4).toBeDefined();
    const priced = (await get(`/api/v1/lists/${vwo4?.identifier}/offers`)).json();
    expect(priced.items.map((item: { ean: string; offers: unknown[] }) => [item.ean, item.offers.length])).toEqual([
      [MATH, 3],
      ['9789001865122', 2],
      [ENGLISH, 3],
      [HISTORY, 0],
    ]);
    expect(priced.summary).toEqual({
      items: 4,
      itemsWithOffers: 3,
      mandatoryItems: 3,
      mandatoryItemsWithOffers: 3,
      cheapestTotal: 34.97, // 9.99 + 15.74 + 9.24
      cheapestMandatoryTotal: 34.97,
      currency: 'EUR',
    });
  });
});
