/**
 * Subscription tests need host names that resolve (or not) without the internet: a fake DNS table,
 * handed to the app as Deps.dnsLookup. Names not in the table fail like getaddrinfo does (ENOTFOUND).
 */

import type { Config } from '../../src/config.js';
import type { Engine } from '../../src/db/database.js';
import type { LookupFn } from '../../src/delivery/ssrf.js';
import { createHarness, type Harness, type TestClient } from '../support/harness.js';

export const FAKE_DNS: Record<string, string[]> = {
  'hooks.shop.example': ['93.184.215.14'],
  'v6.shop.example': ['2606:4700::1111'],
  'rebind.example': ['93.184.215.14', '10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  localhost: ['127.0.0.1', '::1'],
};

export const fakeLookup: LookupFn = async (hostname) => {
  const addresses = FAKE_DNS[hostname.toLowerCase()];
  if (addresses === undefined)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** Like createHarness, with the fake DNS injected. */
export const createDnsHarness = (
  engine: Engine,
  overrides: Partial<Config> = {},
  lookup: LookupFn = fakeLookup,
): Promise<Harness> => createHarness(engine, overrides, { deps: { dnsLookup: lookup } });

export type { TestClient };

export const SUBSCRIPTIONS = '/api/lml/v1/subscriptions';

/** POSTs a subscription as `client`. */
export const subscribe = (h: Harness, client: TestClient, payload: object) => h.as(client).post(SUBSCRIPTIONS, payload);
