import { describe, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { DEMO_BOOKS } from '../../src/lml/demo-books.js';
import { DEMO_EANS, DEMO_OFFERS, DEMO_QUERY_EANS, seedDemoOffers } from '../../src/offers/demo-offers.js';
import { validateEan } from '../../src/vocabulary/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

describe('demo offer data', () => {
  it('uses ten valid 978/979 ISBN-13s, each with offers', () => {
    expect(DEMO_EANS).toHaveLength(10);
    for (const ean of DEMO_EANS) {
      expect(validateEan(ean)).toEqual({ valid: true, kind: 'EAN-13' });
      expect(ean).toMatch(/^97[89]/);
      expect(DEMO_OFFERS.some((offer) => offer.ean === ean)).toBe(true);
    }
    expect(new Set(DEMO_BOOKS.map((book) => book.title)).size).toBe(10);
    expect(DEMO_OFFERS.every((offer) => DEMO_EANS.includes(offer.ean))).toBe(true);
  });
});

describeEachEngine('demo offers', (engine) => {
  const h = useHarness(engine);

  it('seeds them through the service; the public API hides the unpublished ones', async () => {
    expect(await seedDemoOffers(h.services, SYSTEM)).toBe(DEMO_OFFERS.length);
    const rows = await h.database.db.kysely.selectFrom('offers').select(['ean', 'status']).execute();
    expect(rows).toHaveLength(DEMO_OFFERS.length);
    const hidden = rows.filter((row) => row.status !== 'published');
    expect(hidden.map((row) => row.status).sort()).toEqual(['draft', 'draft', 'reserved', 'sold', 'sold', 'withdrawn']);

    const reader = await createClientWithToken(h);
    const readme = await h.as(reader).get(`/api/v1/offers?eans=${DEMO_QUERY_EANS.join('%2C')}`);
    expect(readme.statusCode).toBe(200);
    const offers = readme.json<{ ean: string; price: number }[]>();
    expect(offers.map((offer) => [offer.ean, offer.price])).toEqual([
      ['9780194837125', 9.24],
      ['9780194837125', 12.74],
      ['9780194837125', 16.49],
      ['9789001891442', 9.99],
      ['9789001891442', 14.49],
      ['9789001891442', 19.94],
    ]);
    const all = (await h.as(reader).get(`/api/v1/offers?eans=${DEMO_EANS.join(',')}`)).json<unknown[]>();
    expect(all).toHaveLength(DEMO_OFFERS.length - hidden.length);
    const noneVisible = await h.as(reader).get('/api/v1/offers?eans=9789001774363');
    expect(noneVisible.json()).toEqual([]);
  });
});
