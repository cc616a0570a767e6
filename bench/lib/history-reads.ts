/**
 * The reads an operator, a Prometheus scraper and a partner make, timed over HTTP from the bench
 * process, each call's whole answer read.
 */
import type { ReadSetup } from './history-setup.js';
import { type Spread, spread } from './measure.js';
import { ADMIN_TOKEN, accessToken, type Server } from './shelfmark.js';

export interface Read {
  name: string;
  path: string;
  headers: Record<string, string>;
}

/** The reads whose cost must not grow with the history; `storage` only where the build has it (see availableReads). */
export async function readsOf(server: Server, setup: ReadSetup): Promise<Read[]> {
  const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const bearer = { authorization: `Bearer ${await accessToken(server, setup.client)}` };
  const subscription = setup.subscriptionIds[0] ?? '';
  return [
    { name: 'GET /api/admin/v1/overview', path: '/api/admin/v1/overview', headers: operator },
    { name: 'GET /api/admin/v1/subscription-health', path: '/api/admin/v1/subscription-health', headers: operator },
    { name: 'GET /metrics', path: '/metrics', headers: {} },
    { name: 'GET /api/admin/v1/deliveries?limit=50', path: '/api/admin/v1/deliveries?limit=50', headers: operator },
    {
      name: 'GET /api/admin/v1/deliveries?status=failed&limit=50',
      path: '/api/admin/v1/deliveries?status=failed&limit=50',
      headers: operator,
    },
    {
      name: "partner portal: the client's delivery log (50)",
      path: '/portal/api/deliveries?limit=50',
      headers: { cookie: setup.portalCookie },
    },
    {
      name: "client API: a subscription's delivery log (50)",
      path: `/api/lml/v1/subscriptions/${subscription}/deliveries?limit=50`,
      headers: bearer,
    },
    { name: 'GET /api/admin/v1/storage', path: '/api/admin/v1/storage', headers: operator },
  ];
}

/** The reads this build answers with 200 (a read added by later work, such as the storage view, answers 404 before). */
export async function availableReads(server: Server, reads: readonly Read[]): Promise<Read[]> {
  const available: Read[] = [];
  for (const read of reads) {
    const response = await fetch(`${server.url}${read.path}`, {
      headers: read.headers,
      signal: AbortSignal.timeout(60_000),
    });
    await response.arrayBuffer();
    if (response.status === 200) available.push(read);
    else if (response.status !== 404) throw new Error(`${read.name} answered ${response.status}`);
  }
  return available;
}

async function timed(server: Server, read: Read): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${server.url}${read.path}`, {
    headers: read.headers,
    signal: AbortSignal.timeout(120_000),
  });
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${read.name} answered ${response.status}`);
  return ms;
}

/** One unmeasured call per read (connections and the JIT warm), then `times` rounds over every read, each call timed. */
export async function timeReads(server: Server, reads: readonly Read[], times: number): Promise<Map<string, Spread>> {
  for (const read of reads) await timed(server, read);
  const samples = new Map<string, number[]>(reads.map((read) => [read.name, []]));
  for (let round = 0; round < times; round++)
    for (const read of reads) samples.get(read.name)?.push(await timed(server, read));
  return new Map([...samples].map(([name, values]) => [name, spread(values.map((ms) => Math.round(ms * 10) / 10))]));
}
