import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

const MATH = '9789001891442';
const ENGLISH = '9780194837125';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
const T0 = '2026-09-01T08:00:00.000Z';

describeEachEngine('admin offers API', (engine) => {
  const h = useHarness(engine);

  const admin = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    h.asAdmin().request(method, `/api/admin/v1${url}`, payload);
  const rows = () => h.database.db.kysely.selectFrom('offers').selectAll().orderBy('id').execute();

  it('POST /offers creates an offer: 201, admin shape, Location, stored in cents', async () => {
    const response = await admin('POST', '/offers', {
      ean: MATH,
      price: 12.5,
      condition: 'good',
      remarks: '  Name on page 1  ',
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(body).toEqual({
      id: body.id,
      identifier: body.identifier,
      ean: MATH,
      price: 14.49,
      serviceFee: 1.99,
      currency: 'EUR',
      condition: 'good',
      remarks: 'Name on page 1',
      status: 'published',
      sellerPrice: 12.5,
      createdAt: T0,
      updatedAt: T0,
    });
    expect(Number.isInteger(body.id)).toBe(true);
    expect(response.headers.location).toBe(`/api/admin/v1/offers/${body.id}`);
    const epoch = Date.parse(T0);
    expect(await rows()).toEqual([
      {
        id: body.id,
        identifier: body.identifier,
        ean: MATH,
        price_cents: 1250,
        condition: 'good',
        remarks: 'Name on page 1',
        status: 'published',
        published_at: epoch,
        created_at: epoch,
        updated_at: epoch,
      },
    ]);
  });

  it('POST /offers keeps a given status, turns blank remarks into null and stores float-prone prices exactly', async () => {
    const draft = await admin('POST', '/offers', {
      ean: ENGLISH,
      price: 0.29,
      condition: 'acceptable',
      remarks: '   ',
      status: 'draft',
    });
    expect(draft.statusCode).toBe(201);
    expect(draft.json()).toMatchObject({ status: 'draft', remarks: null, sellerPrice: 0.29, price: 2.28 });
    const big = await admin('POST', '/offers', { ean: ENGLISH, price: 100000, condition: 'excellent', remarks: null });
    expect(big.statusCode).toBe(201);
    expect((await rows()).map((row) => [row.price_cents, row.status, row.remarks])).toEqual([
      [29, 'draft', null],
      [10000000, 'published', null],
    ]);
  });

  it.each([
    [
      'a wrong check digit',
      { ean: '9789001891443', price: 10, condition: 'good' },
      'invalid-ean',
      'invalid EAN code: 9789001891443 (check digit should be 2)',
    ],
    [
      'letters in the EAN',
      { ean: '97890018914AB', price: 10, condition: 'good' },
      'invalid-ean',
      'invalid EAN code: 97890018914AB (contains characters other than digits)',
    ],
    [
      'a price with 3 decimals',
      { ean: MATH, price: 1.234, condition: 'good' },
      'validation-failed',
      'price must have at most 2 decimals, got 1.234',
    ],
    ['a negative price', { ean: MATH, price: -5, condition: 'good' }, 'validation-failed', 'body price must be > 0'],
    ['a zero price', { ean: MATH, price: 0, condition: 'good' }, 'validation-failed', 'body price must be > 0'],
    [
      'a price above 100000',
      { ean: MATH, price: 100000.01, condition: 'good' },
      'validation-failed',
      'body price must be <= 100000',
    ],
    [
      'a non-numeric price',
      { ean: MATH, price: 'cheap', condition: 'good' },
      'validation-failed',
      'body price must be number',
    ],
    ['an unknown condition', { ean: MATH, price: 10, condition: 'mint' }, 'validation-failed', undefined],
    ['an unknown status', { ean: MATH, price: 10, condition: 'good', status: 'lost' }, 'validation-failed', undefined],
    [
      'an unknown field',
      { ean: MATH, price: 10, condition: 'good', seller: 'me' },
      'validation-failed',
      'body must NOT have additional properties',
    ],
    ['a missing ean', { price: 10, condition: 'good' }, 'validation-failed', "body must have required property 'ean'"],
  ])('POST /offers with %s → 400 %s, nothing stored', async (_name, payload, code, detail) => {
    const response = await admin('POST', '/offers', payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe(PROBLEM_TYPE);
    const body = response.json();
    expect(body).toMatchObject({ type: `/problems/${code}`, status: 400, code });
    if (detail !== undefined) expect(body.detail).toBe(detail);
    expect(await rows()).toEqual([]);
  });

  it('POST /offers with a field name in the error list for an unknown field', async () => {
    const body = (await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good', seller: 'me' })).json();
    expect(body.errors).toEqual([
      { location: 'body', path: '/', message: 'must NOT have additional properties', property: 'seller' },
    ]);
  });

  it('GET /offers lists every status with filters and cursor paging', async () => {
    const created = [];
    for (const [ean, status] of [
      [MATH, 'published'],
      [ENGLISH, 'draft'],
      [MATH, 'sold'],
      [MATH, 'published'],
      [ENGLISH, 'published'],
    ] as const) {
      created.push((await admin('POST', '/offers', { ean, price: 10, condition: 'good', status })).json());
    }
    const ids = created.map((offer) => offer.id as number);
    const all = await admin('GET', '/offers');
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual({ has_more: false, data: created });

    const page1 = (await admin('GET', '/offers?limit=2')).json();
    expect(page1).toEqual({ has_more: true, data: created.slice(0, 2) });
    const page2 = (await admin('GET', `/offers?limit=2&starting_after=${ids[1]}`)).json();
    expect(page2).toEqual({ has_more: true, data: created.slice(2, 4) });
    const page3 = (await admin('GET', `/offers?limit=2&starting_after=${ids[3]}`)).json();
    expect(page3).toEqual({ has_more: false, data: created.slice(4) });

    expect((await admin('GET', `/offers?ean=${MATH}`)).json().data.map((offer: { id: number }) => offer.id)).toEqual([
      ids[0],
      ids[2],
      ids[3],
    ]);
    expect(
      (await admin('GET', `/offers?ean=${MATH}&status=published`)).json().data.map((offer: { id: number }) => offer.id),
    ).toEqual([ids[0], ids[3]]);
    expect((await admin('GET', '/offers?status=draft')).json().data.map((offer: { id: number }) => offer.id)).toEqual([
      ids[1],
    ]);

    const badEan = await admin('GET', '/offers?ean=123');
    expect(badEan.statusCode).toBe(400);
    expect(badEan.json().code).toBe('invalid-ean');
    for (const query of ['status=lost', 'limit=0', 'limit=201', 'starting_after=abc', 'starting_after=99999999999']) {
      const bad = await admin('GET', `/offers?${query}`);
      expect(bad.statusCode, query).toBe(400);
      expect(bad.json().code).toBe('validation-failed');
    }
  });

  it('GET /offers/:id answers any status; unknown and non-numeric ids are 404', async () => {
    const draft = (await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good', status: 'draft' })).json();
    const found = await admin('GET', `/offers/${draft.id}`);
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual(draft);
    for (const id of ['424242', 'abc', '2147483648']) {
      const missing = await admin('GET', `/offers/${id}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.headers['content-type']).toBe(PROBLEM_TYPE);
      expect(missing.json()).toMatchObject({ code: 'not-found', detail: `offer ${id} was not found` });
    }
  });

  it('PATCH /offers/:id changes price, condition, remarks and status; the public API follows', async () => {
    const reader = await createClientWithToken(h);
    const offer = (await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good', remarks: 'note' })).json();
    h.clock.advance(60_000);
    const patched = await admin('PATCH', `/offers/${offer.id}`, { price: 8.5, condition: 'acceptable', remarks: null });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({
      ...offer,
      price: 10.49,
      sellerPrice: 8.5,
      condition: 'acceptable',
      remarks: null,
      updatedAt: '2026-09-01T08:01:00.000Z',
    });
    expect(await rows()).toEqual([
      {
        id: offer.id,
        identifier: offer.identifier,
        ean: MATH,
        price_cents: 850,
        condition: 'acceptable',
        remarks: null,
        status: 'published',
        published_at: Date.parse(T0),
        created_at: Date.parse(T0),
        updated_at: Date.parse(T0) + 60_000,
      },
    ]);
    expect((await h.as(reader).get(`/api/v1/offers/${offer.id}`)).statusCode).toBe(200);

    const sold = await admin('PATCH', `/offers/${offer.id}`, { status: 'sold' });
    expect(sold.json().status).toBe('sold');
    expect((await h.as(reader).get(`/api/v1/offers/${offer.id}`)).statusCode).toBe(404);
    expect((await h.as(reader).get(`/api/v1/offers?eans=${MATH}`)).json()).toEqual([]);
  });

  it('PATCH errors: empty patch, bad values, unknown field → 400; unknown id → 404; the row is untouched', async () => {
    const offer = (await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good' })).json();
    const before = await rows();
    const empty = await admin('PATCH', `/offers/${offer.id}`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.headers['content-type']).toBe(PROBLEM_TYPE);
    expect(empty.json()).toMatchObject({
      code: 'validation-failed',
      detail: 'send at least one of price, condition, remarks, status',
    });
    for (const payload of [
      { price: 1.234 },
      { price: -1 },
      { condition: 'mint' },
      { status: 'lost' },
      { ean: ENGLISH },
      { price: 5, foo: 1 },
    ]) {
      const bad = await admin('PATCH', `/offers/${offer.id}`, payload);
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().code).toBe('validation-failed');
    }
    const unknown = await admin('PATCH', '/offers/424242', { price: 5 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not-found');
    expect((await admin('PATCH', '/offers/abc', { price: 5 })).statusCode).toBe(404);
    expect(await rows()).toEqual(before);
  });

  it('DELETE /offers/:id → 204 and the row is gone; again → 404', async () => {
    const keep = (await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good' })).json();
    const drop = (await admin('POST', '/offers', { ean: MATH, price: 11, condition: 'good' })).json();
    const deleted = await admin('DELETE', `/offers/${drop.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await rows()).map((row) => row.id)).toEqual([keep.id]);
    const again = await admin('DELETE', `/offers/${drop.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('not-found');
    expect((await admin('DELETE', '/offers/abc')).statusCode).toBe(404);
  });

  it.each([
    ['no token', {}],
    ['a wrong admin token', { authorization: 'Bearer not-the-admin-token-at-all' }],
    ['Basic credentials', { authorization: 'Basic YWRtaW46YWRtaW4=' }],
  ])('admin offer routes with %s → 401, nothing changes', async (_name, headers) => {
    const offer = (await admin('POST', '/offers', { ean: MATH, price: 10, condition: 'good' })).json();
    const before = await rows();
    const calls = [
      { method: 'POST' as const, url: '/api/admin/v1/offers', payload: { ean: MATH, price: 10, condition: 'good' } },
      { method: 'GET' as const, url: '/api/admin/v1/offers' },
      { method: 'GET' as const, url: `/api/admin/v1/offers/${offer.id}` },
      { method: 'PATCH' as const, url: `/api/admin/v1/offers/${offer.id}`, payload: { price: 1 } },
      { method: 'DELETE' as const, url: `/api/admin/v1/offers/${offer.id}` },
    ];
    for (const call of calls) {
      const response = await h.anonymous().request(call.method, call.url, call.payload, { headers });
      expect(response.statusCode, `${call.method} ${call.url}`).toBe(401);
      expect(response.headers['content-type']).toBe(PROBLEM_TYPE);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="shelfmark-admin"');
      expect(response.json().code).toBe('unauthenticated');
    }
    expect(await rows()).toEqual(before);
  });

  it("an API client's access token does not open the admin API", async () => {
    const reader = await createClientWithToken(h);
    const response = await h.as(reader).post('/api/admin/v1/offers', { ean: MATH, price: 10, condition: 'good' });
    expect(response.statusCode).toBe(401);
    expect(await rows()).toEqual([]);
  });
});
