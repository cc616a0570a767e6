/** The undici sender's error classes over real loopback sockets. */
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UndiciSender } from '../../src/delivery/sender.js';
import { startReceiver } from './support.js';

const request = (url: string) => ({ url, headers: { 'content-type': 'application/json' }, body: '{}' });

describe('undici webhook sender', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const sender = (options: Partial<{ timeoutMs: number; allowPrivate: boolean }> = {}) => {
    const created = new UndiciSender({ timeoutMs: 1000, allowPrivate: true, ...options });
    closers.push(() => created.close());
    return created;
  };

  it('keeps the first 4 KB of the answer and its headers', async () => {
    const receiver = await startReceiver(() => ({
      status: 202,
      headers: { 'x-test': 'yes' },
      body: 'y'.repeat(100_000),
    }));
    closers.push(() => receiver.close());
    const result = await sender().send(request(receiver.url));
    expect(result).toMatchObject({ kind: 'response', statusCode: 202, headers: { 'x-test': 'yes' } });
    expect(result.kind === 'response' && result.bodySnippet).toBe('y'.repeat(4096));
  });

  it('bounds the whole attempt: an answer whose body drips on past the time limit is class timeout', async () => {
    // Headers at once, then a byte every 100 ms: undici's idle timeouts alone would never fire.
    const server = createHttpServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    closers.push(async () => server.closeAllConnections());
    const { port } = server.address() as { port: number };
    const started = Date.now();
    const result = await sender({ timeoutMs: 400 }).send(request(`http://127.0.0.1:${port}/`));
    expect(result).toEqual({
      kind: 'error',
      errorClass: 'timeout',
      message: 'no complete answer within the time limit',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('the time limit covers waiting for a pooled connection, and the slot is usable again afterwards', async () => {
    let hold = true;
    const server = createHttpServer((_, res) => {
      if (hold) return; // never answers while held: the one pooled connection stays busy
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    closers.push(async () => server.closeAllConnections());
    const { port } = server.address() as { port: number };
    const single = new UndiciSender({ timeoutMs: 300, allowPrivate: true, connectionsPerHost: 1 });
    closers.push(() => single.close());
    const [first, queued] = await Promise.all([
      single.send(request(`http://127.0.0.1:${port}/a`)),
      single.send(request(`http://127.0.0.1:${port}/b`)),
    ]);
    expect(first).toMatchObject({ kind: 'error', errorClass: 'timeout' });
    expect(queued).toMatchObject({ kind: 'error', errorClass: 'timeout' });
    hold = false;
    expect(await single.send(request(`http://127.0.0.1:${port}/c`))).toMatchObject({
      kind: 'response',
      statusCode: 204,
      bodySnippet: '',
    });
  });

  it('a refused connection is class connect', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await sender().send(request(`http://127.0.0.1:${port}/`))).toMatchObject({
      kind: 'error',
      errorClass: 'connect',
    });
  });

  it('an unresolvable host is class dns, with and without the guard', async () => {
    expect(await sender().send(request('http://no-such-host.invalid/'))).toMatchObject({
      kind: 'error',
      errorClass: 'dns',
    });
    const guarded = new UndiciSender({ timeoutMs: 1000, allowPrivate: false, lookup: async () => [] });
    closers.push(() => guarded.close());
    expect(await guarded.send(request('http://receiver.example/'))).toMatchObject({ kind: 'error', errorClass: 'dns' });
  });

  it('TLS to a plain-text server is class tls', async () => {
    const receiver = await startReceiver();
    closers.push(() => receiver.close());
    expect(await sender().send(request(receiver.url.replace('http:', 'https:')))).toMatchObject({
      kind: 'error',
      errorClass: 'tls',
    });
  });

  it('the vetted address is the one dialled: a name resolving to a private address is blocked', async () => {
    const receiver = await startReceiver();
    closers.push(() => receiver.close());
    const guarded = new UndiciSender({
      timeoutMs: 1000,
      allowPrivate: false,
      lookup: async () => [{ address: '10.0.0.7', family: 4 }],
    });
    closers.push(() => guarded.close());
    const result = await guarded.send(request(`http://hooks.example:${receiver.port}/`));
    expect(result).toMatchObject({ kind: 'error', errorClass: 'blocked' });
    expect(result.kind === 'error' && result.message).toMatch(/private address 10\.0\.0\.7/);
    expect(receiver.received).toHaveLength(0);
  });

  it('the Host header keeps the name from the URL', async () => {
    const receiver = await startReceiver();
    closers.push(() => receiver.close());
    const result = await sender().send(request(`http://localhost:${receiver.port}/x`));
    expect(result).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(receiver.received[0]?.headers.host).toBe(`localhost:${receiver.port}`);
  });
});
