/**
 * The demo client's secret is published (README, start-up output), so it may only open tokens where
 * nobody else can reach the server: while it listens on loopback. Bound to any other address, the
 * token endpoint refuses that one secret (401 invalid_client, saying why and how to allow it), unless
 * DEMO_CLIENT_PUBLIC=true. What counts is the address the server is bound to, not the caller's.
 */
import ipaddr from 'ipaddr.js';
import type { ClientCredentials } from './basic.js';
import { InvalidClient } from './oauth-errors.js';

/** True for a loopback bind: 127.0.0.0/8, ::1, or the name localhost. */
export function isLoopbackAddress(address: string): boolean {
  if (address === 'localhost') return true;
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.process(bare);
  return parsed.range() === 'loopback';
}

export class DemoSecretPolicy {
  private refusedOn: string | undefined;
  private published: ClientCredentials | undefined;

  /**
   * Called once the server listens (server.ts): `address` is the bound address, `published` the
   * demo client's documented credentials, `allowPublic` DEMO_CLIENT_PUBLIC.
   */
  bound(address: string, published: ClientCredentials, allowPublic: boolean): void {
    this.published = published;
    this.refusedOn = allowPublic || isLoopbackAddress(address) ? undefined : address;
  }

  /** True when the published demo secret is refused on this bind. */
  get refusing(): boolean {
    return this.refusedOn !== undefined;
  }

  /** Throws 401 invalid_client for the published demo secret while refusing it. */
  check(credentials: ClientCredentials): void {
    const { published, refusedOn } = this;
    if (refusedOn === undefined || published === undefined) return;
    if (credentials.clientId !== published.clientId || credentials.clientSecret !== published.clientSecret) return;
    throw new InvalidClient(
      `the demo client's secret is published, so it is refused while this server listens on ${refusedOn} (not loopback). ` +
        `Use a client of your own (npx shelfmark clients create), reset the demo client's secret ` +
        `(npx shelfmark clients reset-secret ${published.clientId}), or set DEMO_CLIENT_PUBLIC=true to accept it anyway`,
    );
  }
}
