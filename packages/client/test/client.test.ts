/**
 * The SDK against the real Shelfmark app over a real socket: tokens (lazy, cached, single flight,
 * refresh before expiry, one refresh after 403), typed errors, offers, LML reads, subscriptions.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../../../test/support/engines.js';
import {
  ApiError,
  AuthenticationError,
  type CreateSubscription,
  InvalidEanError,
  type Offer,
  ShelfmarkClient,
} from '../src/index.js';
import { ean13, type Served, serve } from './support.js';

describeEachEngine('ShelfmarkClient against the real service', (engine) => {
  let s: Served;
  let credentials: { id: string; clientId: string; clientSecret: string; webhookSecret: string };
  let sdkNow: number;
  const client = (extra: Partial<ConstructorParameters<typeof ShelfmarkClient>[0]> = {}) =>
    new ShelfmarkClient({
      baseUrl: s.url,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      now: () => sdkNow,
      ...extra,
    });
  const TOKEN = '/api/auth/token';

  beforeEach(async () => {
    s = await serve(engine, { tokenTtlSeconds: 60, webhookAllowPrivate: true });
    credentials = await s.newClient();
    sdkNow = s.h.clock.now();
  });
  afterEach(async () => s.h.close());

  const offer = async (ean: string, price: number) => {
    const created = await s.admin('POST', '/offers', { ean, price, condition: 'good', status: 'published' });
    expect(created.statusCode).toBe(201);
    return created.json<{ id: number }>().id;
  };

  it('fetches no token until the first call, then one token for 20 concurrent calls, then reuses it', async () => {
    const sdk = client();
    const id = await offer('9789001891442', 10);
    expect(s.count('GET', TOKEN)).toBe(0);
    const answers = await Promise.all(Array.from({ length: 20 }, () => sdk.offers.get(id)));
    expect(answers.every((answer) => answer.id === id)).toBe(true);
    expect(s.count('GET', TOKEN)).toBe(1);
    expect(s.count('GET', `/api/v1/offers/${id}`)).toBe(20);
    await sdk.offers.get(id);
    await sdk.lml.structure();
    expect(s.count('GET', TOKEN)).toBe(1);
  });

  it('refreshes shortly before expires_in ends (TOKEN_TTL_SECONDS=60: margin 6 s)', async () => {
    const sdk = client();
    await sdk.lml.structure();
    sdkNow += 53_000;
    s.h.clock.advance(53_000);
    await sdk.lml.structure();
    expect(s.count('GET', TOKEN)).toBe(1);
    sdkNow += 1_001; // 54.001 s: inside the last 6 s
    s.h.clock.advance(1_001);
    await sdk.lml.structure();
    expect(s.count('GET', TOKEN)).toBe(2);
    // The server never had to refuse a token.
    expect(s.seen.filter((entry) => entry.status === 403)).toEqual([]);
  });

  it('a call answered 403 token-expired fetches one new token and succeeds', async () => {
    const sdk = client();
    await sdk.lml.structure();
    s.h.clock.advance(61_000); // the server's clock: the cached token has expired there, the SDK does not know
    const nodes = await sdk.lml.structure();
    expect(Array.isArray(nodes)).toBe(true);
    expect(s.count('GET', TOKEN)).toBe(2);
    expect(s.seen.filter((entry) => entry.path === '/api/lml/v1/structure').map((entry) => entry.status)).toEqual([
      200, 403, 200,
    ]);

    // Ten calls refused at once still share one new token.
    s.h.clock.advance(61_000);
    await Promise.all(Array.from({ length: 10 }, () => sdk.lml.structure()));
    expect(s.count('GET', TOKEN)).toBe(3);
    expect(s.seen.filter((entry) => entry.path === '/api/lml/v1/structure' && entry.status === 403)).toHaveLength(11);
  });

  it('a 403 that is not an expired token (missing scope) is raised at once, without a refresh', async () => {
    credentials = await s.newClient('offers only', ['offers:read']);
    const sdk = client();
    const error = await sdk.lml.structure().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 403,
      code: 'insufficient-scope',
      detail: 'this call needs the scope lml:read',
    });
    expect((error as ApiError).problem).toMatchObject({
      requiredScope: 'lml:read',
      title: 'The access token lacks the required scope',
    });
    expect(s.count('GET', TOKEN)).toBe(1);
  });

  it('a wrong secret raises AuthenticationError that never contains the secret', async () => {
    const secret = 'sms_wrong_secret_value_123456789';
    const sdk = new ShelfmarkClient({ baseUrl: s.url, clientId: credentials.clientId, clientSecret: secret });
    const error = await sdk.offers.get(1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({
      status: 401,
      error: 'invalid_client',
      clientId: credentials.clientId,
      description: 'client authentication failed: wrong client id or secret',
    });
    for (const text of [
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 5, showHidden: true }),
      inspect(sdk, { depth: 5 }),
    ]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(`${credentials.clientId}:${secret}`).toString('base64'));
    }
    expect(s.count('GET', '/api/v1/offers/1')).toBe(0);
    // Not retried: a 401 is final.
    expect(s.count('GET', TOKEN)).toBe(1);
  });

  it('150 EANs are validated, split into two calls of at most 100 and merged in the service order', async () => {
    const eans = Array.from({ length: 150 }, (_, i) => ean13(`978000000${String(i).padStart(3, '0')}`));
    const ids = [
      await offer(eans[149]!, 5),
      await offer(eans[3]!, 20),
      await offer(eans[3]!, 7),
      await offer(eans[120]!, 9),
    ];
    const sdk = client();
    const offers = await sdk.offers.byEans([...eans, eans[0]!, ` ${eans[3]!} `]);
    expect(s.count('GET', '/api/v1/offers')).toBe(2);
    const queried = s.seen
      .filter((entry) => entry.path === '/api/v1/offers')
      .map((entry) => new URL(entry.url, s.url).searchParams.get('eans')!.split(',').length);
    expect(queried.sort()).toEqual([100, 50]);
    expect(offers.map((o) => [o.ean, o.price, o.id])).toEqual([
      [eans[3], 8.99, ids[2]],
      [eans[3], 21.99, ids[1]],
      [eans[120], 10.99, ids[3]],
      [eans[149], 6.99, ids[0]],
    ]);
    // Exactly 100 distinct codes still fit one call.
    await sdk.offers.byEans(eans.slice(0, 100));
    expect(s.count('GET', '/api/v1/offers')).toBe(3);
    const single = await s.h.app.inject({
      method: 'GET',
      url: `/api/v1/offers?eans=${[eans[3], eans[120], eans[149]].join(',')}`,
      headers: { authorization: `Bearer ${await tokenFor()}` },
    });
    expect(offers).toEqual(single.json<Offer[]>());
  });

  const tokenFor = async (): Promise<string> => {
    const response = await fetch(`${s.url}${TOKEN}`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
      },
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };

  it('invalid EANs fail before any request, naming each code like the service does', async () => {
    const sdk = client();
    const error = await sdk.offers.byEans(['9789001891442', '9789001891443', 'abc']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidEanError);
    expect((error as InvalidEanError).invalidEans).toEqual([
      { ean: '9789001891443', reason: 'check digit should be 2' },
      { ean: 'abc', reason: 'contains characters other than digits' },
    ]);
    expect(s.seen).toEqual([]);
    expect(await sdk.offers.byEans([' ', ''])).toEqual([]);
    expect(s.seen).toEqual([]);
  });

  it('a 404 is an ApiError carrying status, code, detail and the request id', async () => {
    const error = await client()
      .offers.get(999)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError).toMatchObject({ status: 404, code: 'not-found', detail: 'offer 999 was not found' });
    expect(apiError.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(apiError.problem).toEqual({
      type: '/problems/not-found',
      title: 'Resource not found',
      status: 404,
      detail: 'offer 999 was not found',
      instance: apiError.requestId,
      code: 'not-found',
    });
  });

  it('reads schools, lists (by identifier and slug, all pages) and the structure tree', async () => {
    const school = (await s.admin('POST', '/schools', { name: 'Het Lyceum', type: 'VO' })).json<{
      identifier: string;
    }>();
    const lists: { identifier: string; slug: string }[] = [];
    for (const name of ['vwo 4', 'vwo 5', 'vwo 6']) {
      const created = await s.admin('POST', '/lists', {
        school: school.identifier,
        name,
        items: [{ ean: '9789001891442', title: 'Getal & Ruimte' }],
      });
      expect(created.statusCode).toBe(201);
      lists.push(created.json());
    }
    const sdk = client();
    expect(await sdk.lml.schools.get(school.identifier)).toMatchObject({
      identifier: school.identifier,
      name: 'Het Lyceum',
    });
    const bySlug = await sdk.lml.lists.get(lists[1]!.slug);
    expect(bySlug).toMatchObject({
      identifier: lists[1]!.identifier,
      name: 'vwo 5',
      status: 'created',
      items: [{ ean: '9789001891442', title: 'Getal & Ruimte' }],
    });
    const all = [];
    for await (const list of sdk.lml.lists.all({ limit: 2 })) all.push(list.identifier);
    expect(all.sort()).toEqual(lists.map((list) => list.identifier).sort()); // same creation time: ordered by id
    expect(s.count('GET', '/api/lml/v1/lists')).toBe(2);
    const schools = [];
    for await (const each of sdk.lml.schools.all()) schools.push(each.identifier);
    expect(schools).toEqual([school.identifier]);
    const top = await sdk.lml.structure();
    expect(top).toEqual([expect.objectContaining({ id: school.identifier, name: 'Het Lyceum', model: 'SCHOOL' })]);
  });

  it('subscriptions: create, get, iterate over several pages, delete; errors typed', async () => {
    const sdk = client();
    const created = [];
    for (let i = 0; i < 5; i++)
      created.push(
        await sdk.subscriptions.create({ notificationUrl: `http://127.0.0.1:9/hooks/${i}`, event: 'list-published' }),
      );
    expect(created[0]).toMatchObject({
      notificationUrl: 'http://127.0.0.1:9/hooks/0',
      event: 'list-published',
      status: 'active',
    });
    expect(created[0]!.id).toMatch(/^sub_/);
    // Idempotent: the same URL and event answer the existing subscription.
    expect(
      (await sdk.subscriptions.create({ notificationUrl: 'http://127.0.0.1:9/hooks/0', event: 'list.published' })).id,
    ).toBe(created[0]!.id);
    expect(await sdk.subscriptions.get(created[2]!.id)).toEqual(created[2]);

    const seen = [];
    for await (const subscription of sdk.subscriptions.list({ limit: 2 })) seen.push(subscription.id);
    expect(seen.sort()).toEqual(created.map((subscription) => subscription.id).sort()); // same creation time: ordered by id
    expect(new Set(seen).size).toBe(5);
    expect(s.count('GET', '/api/lml/v1/subscriptions')).toBe(3);

    await sdk.subscriptions.delete(created[2]!.id);
    const gone = await sdk.subscriptions.get(created[2]!.id).catch((caught: unknown) => caught);
    expect(gone).toMatchObject({ status: 404, code: 'not-found' });
    const rows = await s.h.database.db.kysely.selectFrom('subscriptions').select('id').orderBy('id').execute();
    expect(rows.map((row) => row.id).sort()).toEqual(
      created
        .filter((_, i) => i !== 2)
        .map((subscription) => subscription.id)
        .sort(),
    );

    const bad = await sdk.subscriptions
      // An event the types refuse, sent anyway: the server's refusal is what this checks.
      .create({ notificationUrl: 'http://127.0.0.1:9/x', event: 'list-exploded' as CreateSubscription['event'] })
      .catch((caught: unknown) => caught);
    expect(bad).toBeInstanceOf(ApiError);
    expect(bad).toMatchObject({ status: 400 });
    // A POST answered with an error is never sent twice.
    expect(
      s.seen.filter(
        (entry) => entry.method === 'POST' && entry.path === '/api/lml/v1/subscriptions' && entry.status === 400,
      ),
    ).toHaveLength(1);
  });

  it('the subscription API may live on another origin (lmlBaseUrl): each call goes to its own host', async () => {
    const other = await serve(engine);
    try {
      const sdk = new ShelfmarkClient({
        baseUrl: s.url,
        lmlBaseUrl: other.url,
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
      });
      await sdk.offers.byEans(['9789001891442']);
      expect(s.count('GET', '/api/v1/offers')).toBe(1);
      // The token of one service is not valid at the other (another database, other keys): proven by the refusal.
      const refused = await sdk.lml.structure().catch((caught: unknown) => caught);
      expect(refused).toMatchObject({ status: 401, code: 'invalid-token' });
      expect(other.count('GET', '/api/lml/v1/structure')).toBe(2); // the call and its one retry with a fresh token
      expect(other.count('GET', TOKEN)).toBe(0);
    } finally {
      await other.h.close();
    }
  });
});
