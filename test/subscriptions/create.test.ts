import { expect, it } from 'vitest';
import { ACCEPTED_EVENT_SPELLINGS, EVENT_NAMES } from '../../src/events/catalogue.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, type Harness } from '../support/harness.js';
import { problem } from '../support/problem.js';
import { emptyTables, useSharedHarness } from '../support/use-harness.js';
import { createDnsHarness, SUBSCRIPTIONS, subscribe } from './support.js';

const URL_OK = 'https://hooks.shop.example/shelfmark';
const rows = (h: Harness) =>
  h.database.db.kysely.selectFrom('subscriptions').selectAll().orderBy('created_at').orderBy('id').execute();
// One app and database per block; each test starts without subscriptions and with a client of its own.
const noSubscriptions = emptyTables('subscriptions');

describeEachEngine('POST /api/lml/v1/subscriptions', (engine) => {
  const h = useSharedHarness(engine, { create: createDnsHarness, client: { name: 'Shop' }, reset: noSubscriptions });

  it.each(EVENT_NAMES.flatMap((name) => [[name, name] as const, [name.replace('.', '-'), name] as const]))(
    'event %s is echoed as given and stored as %s',
    async (given, canonical) => {
      const response = await subscribe(h, h.client, { notificationUrl: URL_OK, event: given });
      expect(response.statusCode).toBe(201);
      const body = response.json<{ id: string }>();
      expect(body).toEqual({
        id: expect.stringMatching(/^sub_[0-9A-Za-z]{21}$/),
        notificationUrl: URL_OK,
        event: given,
        status: 'active',
        createdAt: '2026-09-01T08:00:00.000Z',
      });
      expect(response.headers.location).toBe(`${SUBSCRIPTIONS}/${body.id}`);
      expect(await rows(h)).toEqual([
        {
          id: body.id,
          client_ref: h.client.id,
          notification_url: URL_OK,
          event: canonical,
          event_as_given: given,
          status: 'active',
          disabled_reason: null,
          failing_since: null,
          last_success_at: null,
          consecutive_failures: 0,
          filter: null,
          filter_list: null,
          created_at: h.clock.now(),
          updated_at: h.clock.now(),
        },
      ]);
    },
  );

  it('stores the WHATWG-normalised URL (what the worker will call)', async () => {
    const response = await subscribe(h, h.client, {
      notificationUrl: 'HTTPS://Hooks.Shop.Example:443/a/../hook?x=1',
      event: 'list.created',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().notificationUrl).toBe('https://hooks.shop.example/hook?x=1');
    expect((await rows(h))[0]?.notification_url).toBe('https://hooks.shop.example/hook?x=1');
  });

  it('accepts a public IPv6 host and plain http', async () => {
    expect(
      (await subscribe(h, h.client, { notificationUrl: 'http://v6.shop.example:8080/h', event: 'list.created' }))
        .statusCode,
    ).toBe(201);
    expect(
      (await subscribe(h, h.client, { notificationUrl: 'https://[2606:4700::1111]/h', event: 'list.created' }))
        .statusCode,
    ).toBe(201);
    expect(
      (await subscribe(h, h.client, { notificationUrl: 'http://93.184.215.14/h', event: 'list.created' })).statusCode,
    ).toBe(201);
  });

  it('a duplicate (same URL and canonical event, either spelling) answers 200 with the existing subscription', async () => {
    const first = await subscribe(h, h.client, { notificationUrl: URL_OK, event: 'list-published' });
    expect(first.statusCode).toBe(201);
    const again = await subscribe(h, h.client, { notificationUrl: URL_OK, event: 'list.published' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(`${SUBSCRIPTIONS}/${first.json<{ id: string }>().id}`);
    expect(await rows(h)).toHaveLength(1);
    // Another event or another URL is a new subscription.
    expect((await subscribe(h, h.client, { notificationUrl: URL_OK, event: 'list.created' })).statusCode).toBe(201);
    expect((await subscribe(h, h.client, { notificationUrl: `${URL_OK}/2`, event: 'list.published' })).statusCode).toBe(
      201,
    );
    expect(await rows(h)).toHaveLength(3);
  });

  it('concurrent identical requests create exactly one row', async () => {
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => subscribe(h, h.client, { notificationUrl: URL_OK, event: 'school.created' })),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.json<{ id: string }>().id)).size).toBe(1);
    expect(await rows(h)).toHaveLength(1);
  });

  it('the same URL and event for two clients are two subscriptions', async () => {
    const other = await createClientWithToken(h, 'Other shop');
    expect((await subscribe(h, h.client, { notificationUrl: URL_OK, event: 'list.status' })).statusCode).toBe(201);
    expect((await subscribe(h, other, { notificationUrl: URL_OK, event: 'list.status' })).statusCode).toBe(201);
    expect(await rows(h)).toHaveLength(2);
  });

  it('an unknown event is 400 listing the accepted names', async () => {
    const response = await subscribe(h, h.client, { notificationUrl: URL_OK, event: 'list.deleted' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const detail = `event "list.deleted" is not known; use one of ${ACCEPTED_EVENT_SPELLINGS.join(', ')}`;
    expect(response.json()).toEqual(
      problem('validation-failed', 400, 'Request validation failed', detail, {
        acceptedEvents: [...ACCEPTED_EVENT_SPELLINGS],
        errors: [{ location: 'body', path: '/event', message: detail }],
      }),
    );
    expect(response.json().acceptedEvents).toContain('list-published');
    expect(await rows(h)).toEqual([]);
  });

  it.each([
    ['relative', '/hooks', 'notificationUrl must be an absolute http:// or https:// URL'],
    ['not a URL', 'hooks shop example', 'notificationUrl must be an absolute http:// or https:// URL'],
    ['ftp', 'ftp://hooks.shop.example/x', 'notificationUrl must use http or https, not ftp'],
    ['javascript', 'javascript:alert(1)', 'notificationUrl must use http or https, not javascript'],
    [
      'credentials',
      'https://user:pw@hooks.shop.example/x',
      'notificationUrl must not contain credentials (user:password@); verify the x-hook-signature header instead',
    ],
    [
      'username only',
      'https://user@hooks.shop.example/x',
      'notificationUrl must not contain credentials (user:password@); verify the x-hook-signature header instead',
    ],
    ['fragment', 'https://hooks.shop.example/x#part', 'notificationUrl must not contain a fragment (#...)'],
    ['empty fragment', 'https://hooks.shop.example/x#', 'notificationUrl must not contain a fragment (#...)'],
  ])('%s URL → 400 validation-failed', async (_name, notificationUrl, detail) => {
    const response = await subscribe(h, h.client, { notificationUrl, event: 'list.created' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(
      problem('validation-failed', 400, 'Request validation failed', detail, {
        errors: [{ location: 'body', path: '/notificationUrl', message: detail }],
      }),
    );
    expect(await rows(h)).toEqual([]);
  });

  it('a URL longer than 2048 characters is 400; exactly 2048 is fine', async () => {
    const base = 'https://hooks.shop.example/';
    const exact = base + 'a'.repeat(2048 - base.length);
    expect((await subscribe(h, h.client, { notificationUrl: exact, event: 'list.created' })).statusCode).toBe(201);
    const response = await subscribe(h, h.client, { notificationUrl: `${exact}b`, event: 'list.created' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation-failed',
      detail: 'body notificationUrl must NOT have more than 2048 characters',
    });
  });

  it.each([
    ['missing event', { notificationUrl: URL_OK }, 'event'],
    ['missing URL', { event: 'list.created' }, 'notificationUrl'],
    ['extra property', { notificationUrl: URL_OK, event: 'list.created', secret: 'x' }, 'secret'],
  ])('%s → 400 validation-failed naming the property', async (_name, payload, property) => {
    const response = await subscribe(h, h.client, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('validation-failed');
    expect(response.json().errors).toContainEqual(expect.objectContaining({ property }));
  });

  it.each([
    ['loopback', 'http://127.0.0.1/h', 'loopback address 127.0.0.1'],
    ['loopback (other)', 'http://127.8.9.10:9000/h', 'loopback address 127.8.9.10'],
    ['private 10/8', 'http://10.1.2.3/h', 'private address 10.1.2.3'],
    ['private 172.16/12', 'https://172.20.0.1/h', 'private address 172.20.0.1'],
    ['private 192.168/16', 'https://192.168.0.10/h', 'private address 192.168.0.10'],
    ['metadata', 'http://169.254.169.254/latest/meta-data/', 'link-local (cloud metadata) address 169.254.169.254'],
    ['unspecified', 'http://0.0.0.0/h', 'unspecified address 0.0.0.0'],
    ['CGNAT', 'http://100.64.1.1/h', 'carrier-grade NAT address 100.64.1.1'],
    ['IPv6 loopback', 'http://[::1]/h', 'loopback address ::1'],
    ['IPv6 ULA', 'http://[fd00::1]/h', 'unique local address fd00::1'],
    ['IPv6 link-local', 'http://[fe80::1]/h', 'link-local address fe80::1'],
    [
      'IPv4-mapped dotted',
      'http://[::ffff:127.0.0.1]/h',
      'IPv4-mapped IPv6 address ::ffff:7f00:1 (loopback address 127.0.0.1)',
    ],
    [
      'IPv4-mapped hex',
      'http://[::ffff:7f00:1]/h',
      'IPv4-mapped IPv6 address ::ffff:7f00:1 (loopback address 127.0.0.1)',
    ],
    ['IPv4-compatible', 'http://[::127.0.0.1]/h', 'IPv4-compatible IPv6 address ::7f00:1 (loopback address 127.0.0.1)'],
    [
      '6to4 of loopback',
      'http://[2002:7f00:1::1]/h',
      '6to4 address 2002:7f00:1::1 embedding loopback address 127.0.0.1',
    ],
    ['decimal IPv4', 'http://2130706433/h', 'loopback address 127.0.0.1'],
    ['hex IPv4', 'http://0x7f.1/h', 'loopback address 127.0.0.1'],
    ['octal IPv4', 'http://0177.0.0.1/h', 'loopback address 127.0.0.1'],
    ['short IPv4', 'http://127.1/h', 'loopback address 127.0.0.1'],
    ['decimal metadata', 'http://2852039166/h', 'link-local (cloud metadata) address 169.254.169.254'],
    ['localhost', 'http://localhost:3000/h', 'localhost resolves to loopback address 127.0.0.1'],
    [
      'name resolving to metadata',
      'http://metadata.example/h',
      'metadata.example resolves to link-local (cloud metadata) address 169.254.169.254',
    ],
    [
      'name resolving to public and private',
      'https://rebind.example/h',
      'rebind.example resolves to private address 10.0.0.7',
    ],
  ])('%s %s → 422 blocked-address', async (_name, notificationUrl, reason) => {
    const response = await subscribe(h, h.client, { notificationUrl, event: 'list.published' });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual(
      problem(
        'blocked-address',
        422,
        'The notification URL points to a forbidden address',
        `notificationUrl must reach a public address: ${reason}`,
        { reason },
      ),
    );
    expect(await rows(h)).toEqual([]);
  });

  it('a host that does not resolve → 422 unresolvable-host', async () => {
    const response = await subscribe(h, h.client, {
      notificationUrl: 'https://nowhere.invalid/h',
      event: 'list.published',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual(
      problem(
        'unresolvable-host',
        422,
        'The notification URL host does not resolve',
        'notificationUrl host nowhere.invalid does not resolve to any address',
      ),
    );
    expect(await rows(h)).toEqual([]);
  });

  it('without a token → 401; with a token lacking webhooks:manage → 403', async () => {
    const anonymous = await h.anonymous().post(SUBSCRIPTIONS, { notificationUrl: URL_OK, event: 'list.created' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthenticated');
    const reader = await createClientWithToken(h, 'Reader', ['offers:read']);
    const forbidden = await subscribe(h, reader, { notificationUrl: URL_OK, event: 'list.created' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('insufficient-scope');
    for (const [method, url] of [
      ['GET', SUBSCRIPTIONS],
      ['GET', `${SUBSCRIPTIONS}/sub_x`],
      ['DELETE', `${SUBSCRIPTIONS}/sub_x`],
      ['POST', `${SUBSCRIPTIONS}/sub_x/enable`],
      ['POST', '/api/lml/v1/webhook-secret'],
    ] as const) {
      expect((await h.anonymous().request(method, url)).statusCode).toBe(401);
      expect((await h.as(reader).request(method, url)).statusCode).toBe(403);
    }
    expect(await rows(h)).toEqual([]);
  });
});

describeEachEngine('POST /api/lml/v1/subscriptions with WEBHOOK_ALLOW_PRIVATE=true', (engine) => {
  const h = useSharedHarness(engine, {
    create: (e) => createDnsHarness(e, { webhookAllowPrivate: true }),
    client: { name: 'Shop' },
    reset: noSubscriptions,
  });

  it.each([
    ['http://127.0.0.1:4000/h', 'http://127.0.0.1:4000/h'],
    ['http://10.1.2.3/h', 'http://10.1.2.3/h'],
    ['http://169.254.169.254/h', 'http://169.254.169.254/h'],
    ['http://[::1]:4000/h', 'http://[::1]:4000/h'],
    ['http://[::ffff:127.0.0.1]/h', 'http://[::ffff:7f00:1]/h'],
    ['http://2130706433/h', 'http://127.0.0.1/h'],
    ['http://localhost:4000/h', 'http://localhost:4000/h'],
  ])('%s is accepted (stored as %s)', async (notificationUrl, stored) => {
    const response = await subscribe(h, h.client, { notificationUrl, event: 'list.updated' });
    expect(response.statusCode).toBe(201);
    expect(response.json().notificationUrl).toBe(stored);
    expect((await rows(h))[0]?.notification_url).toBe(stored);
  });

  it('an unresolvable host is still refused', async () => {
    const response = await subscribe(h, h.client, {
      notificationUrl: 'http://nowhere.invalid/h',
      event: 'list.updated',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().code).toBe('unresolvable-host');
  });
});
