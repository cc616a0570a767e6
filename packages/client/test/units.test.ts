/**
 * The parts of the kit that need no server: verifyWebhook's edge cases (including interoperability
 * with the standardwebhooks reference library), the de-duplicator, address resolution and the EAN
 * rules (checked against the service's own validator).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { validateEan } from '../../../src/vocabulary/ean.js';
import {
  ConfigurationError,
  eanProblem,
  nodeWebhookHandler,
  resolveEndpoints,
  ShelfmarkClient,
  verifyWebhook,
  WebhookDeduplicator,
  type WebhookEvent,
} from '../src/index.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ type: 'published', resource: 'list', identifier: '0f8c3b1e9a7d4c2b8e6f5a4d3c2b1a09' });
const now = Date.UTC(2026, 10, 23, 12, 0, 0);

/** Headers exactly as Shelfmark's signer makes them, built here with the reference library. */
function signed(payload = body, key = secret, id = 'dlv_1', at = now): Record<string, string> {
  return {
    'x-hook-signature': createHmac('sha256', Buffer.from(key, 'utf8')).update(payload).digest('base64'),
    'x-hook-event': 'list.published',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': new Webhook(key).sign(id, new Date(at), payload),
  };
}

describe('verifyWebhook', () => {
  const clock = () => now;

  it('accepts what the Standard Webhooks reference library signs, from string, bytes or ArrayBuffer', async () => {
    const expected = {
      type: 'published',
      resource: 'list',
      identifier: '0f8c3b1e9a7d4c2b8e6f5a4d3c2b1a09',
      event: 'list.published',
      id: 'dlv_1',
    };
    const bytes = new TextEncoder().encode(body);
    for (const rawBody of [body, bytes, bytes.buffer])
      await expect(verifyWebhook({ rawBody, headers: signed(), secret, now: clock })).resolves.toEqual(expected);
  });

  it('finds headers whatever their case, and in a Headers object', async () => {
    const upper = Object.fromEntries(Object.entries(signed()).map(([name, value]) => [name.toUpperCase(), value]));
    await expect(verifyWebhook({ rawBody: body, headers: upper, secret, now: clock })).resolves.toMatchObject({
      id: 'dlv_1',
    });
    await expect(
      verifyWebhook({ rawBody: body, headers: new Headers(signed()), secret, now: clock }),
    ).resolves.toMatchObject({ id: 'dlv_1' });
  });

  it('says why it refuses: no secret, no signature, partial headers, future timestamp, garbage signature, bad payload', async () => {
    await expect(verifyWebhook({ rawBody: body, headers: signed(), secrets: [], now: clock })).rejects.toMatchObject({
      reason: 'no-secret',
    });
    await expect(verifyWebhook({ rawBody: body, headers: {}, secret, now: clock })).rejects.toMatchObject({
      reason: 'missing-signature',
    });
    const { 'webhook-timestamp': _dropped, ...partial } = signed();
    await expect(verifyWebhook({ rawBody: body, headers: partial, secret, now: clock })).rejects.toMatchObject({
      reason: 'invalid-headers',
    });
    await expect(
      verifyWebhook({ rawBody: body, headers: { ...signed(), 'webhook-timestamp': '12x' }, secret, now: clock }),
    ).rejects.toMatchObject({ reason: 'invalid-headers' });
    await expect(
      verifyWebhook({ rawBody: body, headers: signed(body, secret, 'dlv_1', now + 301_000), secret, now: clock }),
    ).rejects.toMatchObject({ reason: 'stale-timestamp' });
    await expect(
      verifyWebhook({ rawBody: body, headers: signed(body, secret, 'dlv_1', now + 299_000), secret, now: clock }),
    ).resolves.toMatchObject({ id: 'dlv_1' });
    await expect(
      verifyWebhook({ rawBody: body, headers: { 'x-hook-signature': '%%% not base64' }, secret, now: clock }),
    ).rejects.toMatchObject({ reason: 'invalid-signature' });
    await expect(
      verifyWebhook({ rawBody: body, headers: { ...signed(), 'webhook-signature': 'v2,abc' }, secret, now: clock }),
    ).rejects.toMatchObject({ reason: 'invalid-signature' });
    for (const payload of [
      'not json',
      '[1]',
      '{"type":"x","resource":"y"}',
      '{"type":1,"resource":"y","identifier":"z"}',
    ]) {
      await expect(
        verifyWebhook({ rawBody: payload, headers: signed(payload), secret, now: clock }),
        payload,
      ).rejects.toMatchObject({ reason: 'invalid-payload' });
    }
  });

  it('a replayed id with a fresh timestamp does not verify: the signature covers id and timestamp', async () => {
    const headers = { ...signed(), 'webhook-timestamp': String(Math.floor(now / 1000) + 5) };
    await expect(verifyWebhook({ rawBody: body, headers, secret, now: clock })).rejects.toMatchObject({
      reason: 'invalid-signature',
    });
    const otherId = { ...signed(), 'webhook-id': 'dlv_2' };
    await expect(verifyWebhook({ rawBody: body, headers: otherId, secret, now: clock })).rejects.toMatchObject({
      reason: 'invalid-signature',
    });
  });

  it('forged Standard Webhooks headers are refused, even next to a correct x-hook-signature', async () => {
    const forged = signed(body, `whsec_${randomBytes(32).toString('base64')}`);
    await expect(verifyWebhook({ rawBody: body, headers: forged, secret, now: clock })).rejects.toMatchObject({
      reason: 'invalid-signature',
    });
    // And a correct x-hook-signature does not rescue a forged webhook-signature.
    await expect(
      verifyWebhook({
        rawBody: body,
        headers: { ...forged, 'x-hook-signature': signed()['x-hook-signature']! },
        secret,
        now: clock,
      }),
    ).rejects.toMatchObject({ reason: 'invalid-signature' });
  });
});

describe('WebhookDeduplicator', () => {
  it('remembers ids for the TTL and at most maxEntries, oldest dropped first', () => {
    let time = 0;
    const dedupe = new WebhookDeduplicator({ ttlMs: 1000, maxEntries: 2, now: () => time });
    expect(dedupe.isDuplicate('a')).toBe(false);
    expect(dedupe.isDuplicate('a')).toBe(true);
    time = 999;
    expect(dedupe.isDuplicate('a')).toBe(true);
    time = 1000;
    expect(dedupe.isDuplicate('a')).toBe(false);
    expect(dedupe.isDuplicate('b')).toBe(false);
    expect(dedupe.isDuplicate('c')).toBe(false);
    expect(dedupe.size).toBe(2);
    expect(dedupe.isDuplicate('a')).toBe(false); // a was the oldest and went
    dedupe.forget('c');
    expect(dedupe.isDuplicate('c')).toBe(false);
  });
});

describe('addresses: baseUrl, lmlBaseUrl, staging and named environments', () => {
  const staging = {
    staging: { baseUrl: 'https://api.staging.shop.example/', lmlBaseUrl: 'https://lml.staging.shop.example' },
  };

  it('defaults the subscription API to the main API origin', () => {
    expect(resolveEndpoints({ baseUrl: 'https://api.example.org/' })).toEqual({
      environment: 'production',
      baseUrl: 'https://api.example.org',
      lmlBaseUrl: 'https://api.example.org',
    });
    expect(
      resolveEndpoints({ baseUrl: 'https://api.example.org/shelfmark', lmlBaseUrl: 'https://lml.example.org' }),
    ).toEqual({
      environment: 'production',
      baseUrl: 'https://api.example.org/shelfmark',
      lmlBaseUrl: 'https://lml.example.org',
    });
  });

  it('staging: true and environment pick the operator-supplied addresses', () => {
    const expected = {
      environment: 'staging',
      baseUrl: 'https://api.staging.shop.example',
      lmlBaseUrl: 'https://lml.staging.shop.example',
    };
    expect(resolveEndpoints({ baseUrl: 'https://api.example.org', environments: staging, staging: true })).toEqual(
      expected,
    );
    expect(resolveEndpoints({ environments: staging, environment: 'staging' })).toEqual(expected);
    expect(
      resolveEndpoints({
        environments: { acceptance: { baseUrl: 'http://127.0.0.1:3000' } },
        environment: 'acceptance',
      }),
    ).toEqual({
      environment: 'acceptance',
      baseUrl: 'http://127.0.0.1:3000',
      lmlBaseUrl: 'http://127.0.0.1:3000',
    });
    const client = new ShelfmarkClient({
      baseUrl: 'https://api.example.org',
      environments: staging,
      staging: true,
      clientId: 'smc_x',
      clientSecret: 'sms_y',
    });
    expect(client.endpoints).toEqual(expected);
  });

  it('refuses what cannot work, naming the fix, and never guesses a staging host', () => {
    expect(() => resolveEndpoints({ baseUrl: 'https://api.example.org', staging: true })).toThrow(
      new ConfigurationError(
        'no addresses for environment "staging": pass environments: { staging: { baseUrl, lmlBaseUrl? } } with the addresses your operator publishes',
      ),
    );
    expect(() => resolveEndpoints({})).toThrow('baseUrl is required');
    expect(() => resolveEndpoints({ baseUrl: 'api.example.org' })).toThrow(
      'production.baseUrl must be an absolute http(s) URL, got "api.example.org"',
    );
    expect(() => resolveEndpoints({ baseUrl: 'ftp://api.example.org' })).toThrow('must be an http(s) URL');
    expect(() => resolveEndpoints({ baseUrl: 'https://a.example?x=1' })).toThrow('must not carry a query or fragment');
    expect(() => resolveEndpoints({ environments: staging, staging: true, environment: 'production' })).toThrow(
      'staging: true contradicts environment: "production"',
    );
    expect(() => new ShelfmarkClient({ baseUrl: 'https://a.example', clientId: '', clientSecret: 'x' })).toThrow(
      'clientId is required',
    );
    expect(() => new ShelfmarkClient({ baseUrl: 'https://a.example', clientId: 'x', clientSecret: '' })).toThrow(
      'clientSecret is required',
    );
  });
});

describe('EAN rules match the service', () => {
  it('gives the same verdict and reason as the service for every kind of code', () => {
    const codes = [
      '9789001891442',
      '9789001891443',
      '96385074',
      '96385075',
      '10012345678902',
      '10012345678903',
      '',
      'abc',
      '97890018914',
      '978900189144a',
      '0000000000000',
    ];
    for (const code of codes) {
      const service = validateEan(code);
      expect(eanProblem(code), code).toBe(service.valid ? undefined : service.reason);
    }
  });
});

describe('nodeWebhookHandler', () => {
  it('refuses bodies above maxBodyBytes with 413, accepts a signed one, and reports onEvent failures to onError', async () => {
    const events: WebhookEvent[] = [];
    const errors: unknown[] = [];
    const handler = nodeWebhookHandler({
      secret,
      maxBodyBytes: 200,
      now: () => now,
      onEvent: (event) => {
        events.push(event);
        throw new Error('processing failed');
      },
      onError: (error) => void errors.push(error),
    });
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const big = await fetch(url, { method: 'POST', headers: signed(), body: 'x'.repeat(201) });
      expect(big.status).toBe(413);
      expect(await big.json()).toEqual({ error: 'body-too-large', message: 'bodies above 200 bytes are refused' });
      const good = await fetch(url, { method: 'POST', headers: signed(), body });
      expect(good.status).toBe(204);
      await vi.waitFor(() => expect(errors).toHaveLength(1));
      expect(events.map((event) => event.id)).toEqual(['dlv_1']);
      expect((errors[0] as Error).message).toBe('processing failed');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
