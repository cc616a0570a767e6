/**
 * A default start binds to loopback, and the demo client's published secret opens no
 * token on a server bound beyond loopback unless DEMO_CLIENT_PUBLIC=true. What counts is the address
 * the server is bound to, not the caller's: the requests here all go to 127.0.0.1. No traffic leaves
 * the machine (a 0.0.0.0 bind is reached through 127.0.0.1).
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { isLoopbackAddress } from '../../src/auth/demo-secret.js';
import { loadConfig } from '../../src/config.js';
import { DEMO_CLIENT, seedDemo } from '../../src/seed/demo.js';
import { basic, createHarness, type Harness } from '../support/harness.js';

describe('a safe default start', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A harness with the demo data, listening on `host` (port chosen by the kernel), as server.ts binds it. */
  const serve = async (host: string, allowPublic: boolean) => {
    h = await createHarness('sqlite', { host, demoClientPublic: allowPublic });
    await seedDemo(h.services, SYSTEM);
    h.services.tokenEndpoint.demoSecret.bound(h.config.host, DEMO_CLIENT, h.config.demoClientPublic);
    await h.app.listen({ host: h.config.host, port: 0 });
    return h.app.server.address() as AddressInfo;
  };
  const demoToken = (port: number) =>
    fetch(`http://127.0.0.1:${port}/api/auth/token`, {
      headers: { authorization: basic(DEMO_CLIENT.clientId, DEMO_CLIENT.clientSecret) },
    });

  it('binds to loopback by default', async () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({}).demoClientPublic).toBe(false);
    const address = await serve(loadConfig({}).host, false);
    expect(address.address).toBe('127.0.0.1');
    // On loopback the README's curl works as documented.
    const response = await demoToken(address.port);
    expect(response.status).toBe(200);
  });

  it('bound to 0.0.0.0, the published demo secret is refused with a 401 that says why and how to allow it', async () => {
    const address = await serve('0.0.0.0', false);
    expect(address.address).toBe('0.0.0.0');
    const response = await demoToken(address.port);
    expect(response.status).toBe(401);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: 'invalid_client' });
    const said = JSON.stringify(body);
    expect(said).toContain(
      "the demo client's secret is published, so it is refused while this server listens on 0.0.0.0",
    );
    expect(said).toContain('DEMO_CLIENT_PUBLIC=true');
    // Another client's secret still works on the same bind.
    const own = (await h?.asAdmin().post('/api/admin/v1/clients', { name: 'Own shop' }))?.json<{
      clientId: string;
      clientSecret: string;
    }>();
    const ownToken = await fetch(`http://127.0.0.1:${address.port}/api/auth/token`, {
      headers: { authorization: basic(own?.clientId ?? '', own?.clientSecret ?? '') },
    });
    expect(ownToken.status).toBe(200);
    // A wrong secret for the demo client is the usual authentication failure, not this refusal.
    const wrong = await fetch(`http://127.0.0.1:${address.port}/api/auth/token`, {
      headers: { authorization: basic(DEMO_CLIENT.clientId, 'sms_wrong') },
    });
    expect(JSON.stringify(await wrong.json())).not.toContain('published');
  });

  it('DEMO_CLIENT_PUBLIC=true accepts the demo secret on 0.0.0.0', async () => {
    const address = await serve('0.0.0.0', true);
    expect((await demoToken(address.port)).status).toBe(200);
  });

  it('loopback addresses are told apart from the others', () => {
    for (const loopback of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(loopback)).toBe(true);
    for (const other of ['0.0.0.0', '::', '192.0.2.2', '10.0.0.1', 'example.org', ''])
      expect(isLoopbackAddress(other)).toBe(false);
  });
});
