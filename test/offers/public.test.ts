import { expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import type { AdminOffer } from '../../src/offers/schemas.js';
import type { CreateOfferInput } from '../../src/offers/service.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { freshHarness, useHarness } from '../support/use-harness.js';
import { ENGLISH, MATH, PHYSICS } from './support.js';

const UNKNOWN = '9780306406157';
const EAN8 = '96385074';
const GTIN14 = '10012345000017';

const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

describeEachEngine('public offers API', (engine) => {
  const h = useHarness(engine, { client: true });

  const create = (input: CreateOfferInput): Promise<AdminOffer> => h.services.offers.create(input, SYSTEM);
  const get = (url: string) => h.as(h.client).get(url);
  /** The public shape of an admin offer under the default €1.99 fee. */
  const pub = (offer: AdminOffer, price: number) => ({
    id: offer.id,
    identifier: offer.identifier,
    ean: offer.ean,
    price,
    serviceFee: 1.99,
    currency: 'EUR',
    condition: offer.condition,
    remarks: offer.remarks,
  });

  it('answers a bare array of published offers ordered by EAN, then price, then id', async () => {
    const mathGood = await create({ ean: MATH, price: 12.5, condition: 'good', remarks: 'Name on page 1' });
    const english = await create({ ean: ENGLISH, price: 10.75, condition: 'acceptable' });
    const mathCheap = await create({ ean: MATH, price: 8, condition: 'acceptable' });
    const mathSame = await create({ ean: MATH, price: 12.5, condition: 'excellent' });
    await create({ ean: PHYSICS, price: 9.99, condition: 'good' });

    const response = await get(`/api/v1/offers?eans=${MATH},${ENGLISH}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual([
      pub(english, 12.74),
      pub(mathCheap, 9.99),
      pub(mathGood, 14.49),
      pub(mathSame, 14.49),
    ]);
    expect(Object.keys(response.json()[0]).sort()).toEqual([
      'condition',
      'currency',
      'ean',
      'id',
      'identifier',
      'price',
      'remarks',
      'serviceFee',
    ]);
    expect(response.json()[2].remarks).toBe('Name on page 1');
    expect(response.json()[0].remarks).toBeNull();
  });

  it('accepts %2C as the separator, trims blanks, drops empties and collapses duplicates', async () => {
    const math = await create({ ean: MATH, price: 12.5, condition: 'good' });
    const english = await create({ ean: ENGLISH, price: 10, condition: 'good' });
    const expected = [pub(english, 11.99), pub(math, 14.49)];
    expect((await get(`/api/v1/offers?eans=${MATH}%2C${ENGLISH}`)).json()).toEqual(expected);
    expect((await get(`/api/v1/offers?eans=${MATH}%2c${ENGLISH}`)).json()).toEqual(expected);
    const messy = await get(`/api/v1/offers?eans=%20${MATH}%20,,${ENGLISH},${MATH}%2C+${ENGLISH}+,`);
    expect(messy.statusCode).toBe(200);
    expect(messy.json()).toEqual(expected);
  });

  it('ignores other query parameters and accepts EAN-8 and GTIN-14 codes', async () => {
    const short = await create({ ean: EAN8, price: 3, condition: 'good' });
    const gtin = await create({ ean: GTIN14, price: 4, condition: 'good' });
    const response = await get(`/api/v1/offers?take=10&eans=${GTIN14},${EAN8}&page=2`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([pub(gtin, 5.99), pub(short, 4.99)]);
  });

  it('an unknown but valid EAN has no offers: []', async () => {
    await create({ ean: MATH, price: 12.5, condition: 'good' });
    const response = await get(`/api/v1/offers?eans=${UNKNOWN}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('hides draft, reserved, sold and withdrawn offers', async () => {
    const published = await create({ ean: MATH, price: 20, condition: 'good', status: 'published' });
    for (const status of ['draft', 'reserved', 'sold', 'withdrawn'] as const)
      await create({ ean: MATH, price: 5, condition: 'good', status });
    await create({ ean: ENGLISH, price: 5, condition: 'good', status: 'draft' });
    expect((await get(`/api/v1/offers?eans=${MATH},${ENGLISH}`)).json()).toEqual([pub(published, 21.99)]);
    expect(
      await h.database.db.kysely
        .selectFrom('offers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: 6 });
  });

  it('an invalid check digit is a 400 invalid-ean naming the code', async () => {
    const response = await h
      .as(h.client)
      .get('/api/v1/offers?eans=9789001891443', { headers: { 'x-request-id': 'req-ean-1' } });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe(PROBLEM_TYPE);
    expect(response.json()).toEqual({
      type: '/problems/invalid-ean',
      title: 'One or more EAN codes are invalid',
      status: 400,
      detail: 'invalid EAN code: 9789001891443 (check digit should be 2)',
      instance: 'req-ean-1',
      code: 'invalid-ean',
      invalidEans: [{ ean: '9789001891443', reason: 'check digit should be 2' }],
    });
  });

  it('valid and invalid codes mixed: 400 naming only the invalid ones', async () => {
    const response = await get(`/api/v1/offers?eans=${MATH},12345,${ENGLISH},97801948371AB,9780194837126`);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.detail).toBe(
      'invalid EAN codes: 12345 (not 8, 13 or 14 digits), 97801948371AB (contains characters other than digits), 9780194837126 (check digit should be 5)',
    );
    expect(body.invalidEans).toEqual([
      { ean: '12345', reason: 'not 8, 13 or 14 digits' },
      { ean: '97801948371AB', reason: 'contains characters other than digits' },
      { ean: '9780194837126', reason: 'check digit should be 5' },
    ]);
  });

  it('100 distinct codes are served; 101 are a 400 naming the limit', async () => {
    const codes = Array.from({ length: 101 }, (_, i) => eanOf(i + 1));
    const hundred = await get(`/api/v1/offers?eans=${codes.slice(0, 100).join(',')},${codes[0]}`);
    expect(hundred.statusCode).toBe(200);
    expect(hundred.json()).toEqual([]);
    const tooMany = await get(`/api/v1/offers?eans=${codes.join(',')}`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.headers['content-type']).toBe(PROBLEM_TYPE);
    expect(tooMany.json()).toMatchObject({
      code: 'validation-failed',
      status: 400,
      detail: 'eans names 101 distinct codes; at most 100 per request',
    });
  });

  it('a missing, empty or blank eans is a 400 validation-failed', async () => {
    const missing = await get('/api/v1/offers');
    expect(missing.statusCode).toBe(400);
    expect(missing.headers['content-type']).toBe(PROBLEM_TYPE);
    expect(missing.json()).toMatchObject({
      code: 'validation-failed',
      detail: "querystring must have required property 'eans'",
    });
    for (const value of ['', '%20', ',,', '%2C%20%2C']) {
      const empty = await get(`/api/v1/offers?eans=${value}`);
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toMatchObject({
        code: 'validation-failed',
        detail: 'eans must name at least one EAN code (comma-separated)',
      });
    }
    const repeated = await get(`/api/v1/offers?eans=${MATH}&eans=${ENGLISH}`);
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().code).toBe('validation-failed');
  });

  it('GET /offers/:id answers a published offer and 404 for unknown, unpublished or non-numeric ids', async () => {
    const offer = await create({ ean: MATH, price: 12.5, condition: 'excellent', remarks: 'As new' });
    const draft = await create({ ean: MATH, price: 7, condition: 'good', status: 'draft' });
    const found = await get(`/api/v1/offers/${offer.id}`);
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual({
      id: offer.id,
      identifier: offer.identifier,
      ean: MATH,
      price: 14.49,
      serviceFee: 1.99,
      currency: 'EUR',
      condition: 'excellent',
      remarks: 'As new',
    });
    for (const id of [
      String(draft.id),
      '999999',
      'abc',
      '1.5',
      '-1',
      '0',
      `0${offer.id}`,
      '99999999999',
      '2147483648',
    ]) {
      const response = await get(`/api/v1/offers/${id}`);
      expect(response.statusCode, id).toBe(404);
      expect(response.headers['content-type']).toBe(PROBLEM_TYPE);
      expect(response.json()).toMatchObject({ code: 'not-found', status: 404, detail: `offer ${id} was not found` });
    }
  });

  it('the detail route is guarded too', async () => {
    const offer = await create({ ean: MATH, price: 12.5, condition: 'good' });
    const response = await h.anonymous().get(`/api/v1/offers/${offer.id}`);
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('unauthenticated');
  });

  it('prices add the configured service fee with exact cent arithmetic', async () => {
    const h = await freshHarness(engine, { serviceFeeCents: 250 });
    const shop = await createClientWithToken(h);
    const create = (input: CreateOfferInput) => h.services.offers.create(input, SYSTEM);
    const get = (url: string) => h.as(shop).get(url);
    const a = await create({ ean: MATH, price: 10.01, condition: 'good' });
    const b = await create({ ean: MATH, price: 0.29, condition: 'good' });
    const c = await create({ ean: MATH, price: 99999.99, condition: 'good' });
    expect((await get(`/api/v1/offers?eans=${MATH}`)).json()).toEqual([
      {
        id: b.id,
        identifier: b.identifier,
        ean: MATH,
        price: 2.79,
        serviceFee: 2.5,
        currency: 'EUR',
        condition: 'good',
        remarks: null,
      },
      {
        id: a.id,
        identifier: a.identifier,
        ean: MATH,
        price: 12.51,
        serviceFee: 2.5,
        currency: 'EUR',
        condition: 'good',
        remarks: null,
      },
      {
        id: c.id,
        identifier: c.identifier,
        ean: MATH,
        price: 100002.49,
        serviceFee: 2.5,
        currency: 'EUR',
        condition: 'good',
        remarks: null,
      },
    ]);
    const rows = await h.database.db.kysely.selectFrom('offers').select(['id', 'price_cents']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: a.id, price_cents: 1001 },
      { id: b.id, price_cents: 29 },
      { id: c.id, price_cents: 9999999 },
    ]);
    const free = await freshHarness(engine, { serviceFeeCents: 0 });
    const token = await createClientWithToken(free);
    await free.services.offers.create({ ean: MATH, price: 3.3, condition: 'good' }, SYSTEM);
    const body = (await free.as(token).get(`/api/v1/offers?eans=${MATH}`)).json();
    expect(body).toMatchObject([{ price: 3.3, serviceFee: 0 }]);
  });
});
