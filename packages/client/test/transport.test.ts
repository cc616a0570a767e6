/**
 * Timeouts, cancellation and retries, through a fault-injecting loopback proxy in front of the real
 * service: the proxy answers 5xx/429, drops connections or hangs when told to, and forwards otherwise.
 * Waits are recorded through the injected sleep, so no test sleeps.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../../../test/support/engines.js';
import { ApiError, NetworkError, ShelfmarkClient, TimeoutError } from '../src/index.js';
import { retryAfterMs } from '../src/transport.js';
import { type Served, serve } from './support.js';

type Fault = { status: number; headers?: Record<string, string>; body?: string } | 'drop' | 'hang' | undefined;

interface Proxy {
  url: string;
  /** Requests that reached the proxy: method and path. */
  seen: string[];
  close(): Promise<void>;
}

async function faultyProxy(target: string, fault: (request: IncomingMessage, index: number) => Fault): Promise<Proxy> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = seen.push(`${request.method ?? ''} ${(request.url ?? '').split('?')[0] ?? ''}`) - 1;
      const chosen = fault(request, index);
      if (chosen === 'hang') return;
      if (chosen === 'drop') return request.socket.destroy();
      if (chosen !== undefined) {
        response.writeHead(chosen.status, chosen.headers ?? {}).end(chosen.body ?? '');
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${request.url ?? ''}`, {
        method: request.method ?? 'GET',
        headers,
        ...(body === undefined ? {} : { body }),
      })
        .then(async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (
              name !== 'content-length' &&
              name !== 'transfer-encoding' &&
              name !== 'connection' &&
              name !== 'keep-alive'
            )
              out[name] = value;
          });
          response.writeHead(answer.status, out).end(text);
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describeEachEngine('SDK retries, timeouts and cancellation', (engine) => {
  let s: Served;
  let proxy: Proxy | undefined;
  let credentials: { clientId: string; clientSecret: string };
  let sleeps: number[];
  let offerId: number;

  beforeEach(async () => {
    s = await serve(engine, { webhookAllowPrivate: true });
    credentials = await s.newClient();
    sleeps = [];
    const created = await s.admin('POST', '/offers', {
      ean: '9789001891442',
      price: 10,
      condition: 'good',
      status: 'published',
    });
    offerId = created.json<{ id: number }>().id;
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await s.h.close();
  });

  /** A client through a proxy; jitter pinned to its maximum so waits are exact. */
  const through = async (
    fault: (request: IncomingMessage, index: number) => Fault,
    extra: Partial<ConstructorParameters<typeof ShelfmarkClient>[0]> = {},
  ) => {
    proxy = await faultyProxy(s.url, fault);
    return new ShelfmarkClient({
      baseUrl: proxy.url,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      random: () => 1,
      sleep: async (ms) => void sleeps.push(ms),
      ...extra,
    });
  };
  const onOffer = (request: IncomingMessage) => request.url === `/api/v1/offers/${offerId}`;

  it('a GET answered 503 (Retry-After: 2) then 500 is retried, waiting 2 s then 400 ms, and succeeds', async () => {
    let failures = 0;
    const sdk = await through((request) => {
      if (!onOffer(request) || failures >= 2) return undefined;
      failures++;
      return failures === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 500, body: 'oops' };
    });
    const offer = await sdk.offers.get(offerId);
    expect(offer.id).toBe(offerId);
    expect(sleeps).toEqual([2000, 400]);
    expect(proxy!.seen.filter((line) => line === `GET /api/v1/offers/${offerId}`)).toHaveLength(3);
    expect(s.count('GET', `/api/v1/offers/${offerId}`)).toBe(1);
  });

  it('gives up after maxRetries and raises the last answer; a non-JSON body becomes the detail', async () => {
    const sdk = await through((request) => (onOffer(request) ? { status: 502, body: 'Bad gateway' } : undefined));
    const error = await sdk.offers.get(offerId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: 'http-502', detail: 'Bad gateway' });
    expect(sleeps).toEqual([200, 400]);
    expect(proxy!.seen.filter((line) => line.startsWith('GET /api/v1/offers/'))).toHaveLength(3);
  });

  it('429 with a Retry-After beyond maxRetryAfterMs is raised at once, not waited for', async () => {
    const sdk = await through((request) =>
      onOffer(request)
        ? {
            status: 429,
            headers: { 'retry-after': '120', 'content-type': 'application/problem+json' },
            body: '{"status":429,"code":"rate-limited","detail":"slow down"}',
          }
        : undefined,
    );
    const error = await sdk.offers.get(offerId).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 429, code: 'rate-limited', detail: 'slow down' });
    expect(sleeps).toEqual([]);
  });

  it('a POST is never retried: neither on 503 nor on a dropped connection', async () => {
    const sdk = await through((request) =>
      request.method === 'POST' ? { status: 503, headers: { 'retry-after': '0' } } : undefined,
    );
    await expect(
      sdk.subscriptions.create({ notificationUrl: 'http://127.0.0.1:9/b', event: 'list-published' }),
    ).rejects.toMatchObject({ status: 503 });
    await expect(sdk.subscriptions.rotateWebhookSecret()).rejects.toMatchObject({ status: 503 });
    expect(proxy!.seen.filter((line) => line.startsWith('POST'))).toEqual([
      'POST /api/lml/v1/subscriptions',
      'POST /api/lml/v1/webhook-secret',
    ]);
    expect(sleeps).toEqual([]);
    expect(s.count('POST', '/api/lml/v1/subscriptions')).toBe(0);
  });

  it('a dropped connection: a GET is retried and succeeds, a POST raises NetworkError', async () => {
    let dropped = 0;
    const sdk = await through((request) => {
      if (request.method === 'POST') return 'drop';
      if (onOffer(request) && dropped === 0) {
        dropped++;
        return 'drop';
      }
      return undefined;
    });
    expect((await sdk.offers.get(offerId)).id).toBe(offerId);
    expect(sleeps).toEqual([200]);
    const error = await sdk.subscriptions.ping('sub_x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(proxy!.seen.filter((line) => line.startsWith('POST'))).toHaveLength(1);
  });

  it('the token call is a GET too: a 503 from the token endpoint is retried', async () => {
    let failed = false;
    const sdk = await through((request) => {
      if (request.url?.startsWith('/api/auth/token') !== true || failed) return undefined;
      failed = true;
      return { status: 503 };
    });
    expect((await sdk.offers.get(offerId)).id).toBe(offerId);
    expect(proxy!.seen.filter((line) => line === 'GET /api/auth/token')).toHaveLength(2);
    expect(s.count('GET', '/api/auth/token')).toBe(1);
  });

  it('an attempt that takes longer than timeoutMs raises TimeoutError (not retried)', async () => {
    const sdk = await through((request) => (onOffer(request) ? 'hang' : undefined), { timeoutMs: 5000 });
    const started = Date.now();
    const error = await sdk.offers.get(offerId, { timeoutMs: 150 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(`GET ${proxy!.url}/api/v1/offers/${offerId} timed out after 150 ms`);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(proxy!.seen.filter((line) => line.startsWith('GET /api/v1/offers/'))).toHaveLength(1);
  });

  it('an AbortSignal cancels a call in flight, and an aborted signal sends nothing', async () => {
    const sdk = await through((request) => (onOffer(request) ? 'hang' : undefined));
    const controller = new AbortController();
    const pending = sdk.offers.get(offerId, { signal: controller.signal });
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (proxy!.seen.some((line) => line.startsWith('GET /api/v1/offers/'))) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const before = proxy!.seen.length;
    await expect(sdk.offers.get(offerId, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(proxy!.seen.length).toBe(before);
  });
});

it('Retry-After is read as seconds or as an HTTP date; anything else is ignored', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  expect(retryAfterMs('7', now)).toBe(7000);
  expect(retryAfterMs(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
  expect(retryAfterMs(new Date(now - 30_000).toUTCString(), now)).toBe(0);
  expect(retryAfterMs('soon', now)).toBeUndefined();
  expect(retryAfterMs(null, now)).toBeUndefined();
});
