/**
 * The token endpoint authenticates a client against its row as read at most CLIENT_STATE_TTL_MS ago
 * (src/auth/client-states.ts), the same bound as token verification's client state. A secret reset or a
 * revocation counts at once on the node that made it, and on another node (two apps on one database)
 * within that bound: then the old secret mints nothing and the tokens it minted meanwhile are refused.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SYSTEM } from '../../src/audit/initiator.js';
import { CLIENT_ROWS_KEPT, CLIENT_STATE_TTL_MS, ClientStates } from '../../src/auth/client-states.js';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { connectDatabase, type Db } from '../../src/db/database.js';
import type { ClientRow } from '../../src/db/schema.js';
import { type App, buildApp } from '../../src/main/app.js';
import { createServices, type Services } from '../../src/main/services.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';

interface Node {
  app: App;
  services: Services;
}

describeEachEngine('client rows at the token endpoint, two nodes', (engine) => {
  let database: TestDatabase;
  let second: Db;
  let clock: ManualClock;
  let a: Node;
  let b: Node;
  let client: { id: string; clientId: string; clientSecret: string };

  const start = async (db: Db): Promise<Node> => {
    const deps = { config: testConfig({ adminToken: ADMIN_TOKEN }), db, clock };
    const services = await createServices(deps);
    const app = await buildApp({ ...deps, services }, { logger: false });
    await app.ready();
    return { app, services };
  };

  /** GET /api/auth/token on a node: the status and, on 200, the token. */
  const token = async (node: Node, secret: string): Promise<{ status: number; token?: string }> => {
    const response = await node.app.inject({
      method: 'GET',
      url: '/api/auth/token',
      headers: { authorization: basic(client.clientId, secret) },
    });
    return response.statusCode === 200
      ? { status: 200, token: response.json<{ access_token: string }>().access_token }
      : { status: response.statusCode };
  };

  /** The status of an offers call with this token on a node. */
  const use = async (node: Node, accessToken: string | undefined): Promise<number> =>
    (
      await node.app.inject({
        method: 'GET',
        url: '/api/v1/offers?eans=9789001891442',
        headers: { authorization: `Bearer ${accessToken ?? ''}` },
      })
    ).statusCode;

  beforeEach(async () => {
    database = await freshDatabase(engine, { file: true });
    second = await connectDatabase(database.url);
    clock = new ManualClock(Date.UTC(2026, 8, 1, 8, 0, 0));
    a = await start(database.db);
    b = await start(second);
    const created = await a.app.inject({
      method: 'POST',
      url: '/api/admin/v1/clients',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { name: 'Shop', scopes: ['offers:read'] },
    });
    client = created.json();
    // Both nodes have read the client's row (and its state) before the change.
    for (const node of [a, b]) {
      const issued = await token(node, client.clientSecret);
      expect(issued.status).toBe(200);
      expect(await use(node, issued.token)).toBe(200);
    }
  });
  afterEach(async () => {
    await a.app.close();
    await b.app.close();
    await second.close();
    await database.drop();
  });

  it('a secret reset: at once on its node, within the bound on the other, old tokens refused after it', async () => {
    const { clientSecret: newSecret } = await a.services.clients.resetSecret(client.id, SYSTEM);
    // The node that reset: the old secret is refused at once, the new one works.
    expect((await token(a, client.clientSecret)).status).toBe(401);
    const fresh = await token(a, newSecret);
    expect(fresh.status).toBe(200);

    // The other node within the bound: it still holds the row it read, so the old secret still mints;
    // that token carries the old secret generation and is refused at once by the node that reset.
    const stale = await token(b, client.clientSecret);
    expect(stale.status).toBe(200);
    expect(await use(a, stale.token)).toBe(401);

    clock.advance(CLIENT_STATE_TTL_MS);
    // Past the bound, the other node reads the row again: old secret refused, new one accepted, and the
    // token the old secret minted meanwhile refused there too.
    expect((await token(b, client.clientSecret)).status).toBe(401);
    const fromB = await token(b, newSecret);
    expect(fromB.status).toBe(200);
    expect(await use(b, stale.token)).toBe(401);
    expect(await use(b, fresh.token)).toBe(200);
    expect(await use(a, fromB.token)).toBe(200);
  });

  it('a revocation: at once on its node, within the bound on the other, its tokens refused after it', async () => {
    await a.services.clients.revoke(client.id, SYSTEM);
    expect((await token(a, client.clientSecret)).status).toBe(401);

    const stale = await token(b, client.clientSecret);
    expect(stale.status).toBe(200);
    expect(await use(a, stale.token)).toBe(401);

    clock.advance(CLIENT_STATE_TTL_MS);
    expect((await token(b, client.clientSecret)).status).toBe(401);
    expect(await use(b, stale.token)).toBe(401);
  });

  it('a wrong secret is refused on a node that holds the row, and a row held is not read again within the bound', async () => {
    expect((await token(b, 'not-the-secret')).status).toBe(401);
    // Changed behind both nodes' backs (no service call, so no node forgets it): the held row answers.
    await database.db.kysely
      .updateTable('clients')
      .set({ revoked_at: clock.now() })
      .where('id', '=', client.id)
      .execute();
    expect((await token(b, client.clientSecret)).status).toBe(200);
    clock.advance(CLIENT_STATE_TTL_MS);
    expect((await token(b, client.clientSecret)).status).toBe(401);
  });
});

const row = (clientId: string): ClientRow => ({
  id: `cl_${clientId}`,
  client_id: clientId,
  name: 'Shop',
  secret_hash: 'h',
  secret_version: 1,
  tokens_valid_after: 0,
  scopes: 'offers:read',
  webhook_secret: 'w',
  previous_webhook_secret: null,
  previous_webhook_secret_expires_at: null,
  revoked_at: null,
  created_at: 0,
  updated_at: 0,
});

it('rows: fresh for the bound, unknown ids remembered too, forgotten at once, bounded, and a read a change overtook not kept', () => {
  const states = new ClientStates();
  const now = 1_000_000;
  states.keepRow('known', row('known'), now, states.changes);
  states.keepRow('unknown', undefined, now, states.changes);
  expect(states.rowOf('known', now + CLIENT_STATE_TTL_MS - 1)?.row?.client_id).toBe('known');
  expect(states.rowOf('unknown', now)).toEqual({ row: undefined, loadedAt: now });
  expect(states.rowOf('known', now + CLIENT_STATE_TTL_MS)).toBeUndefined();
  // A clock that went back does not make an old read fresh.
  expect(states.rowOf('known', now - 1)).toBeUndefined();

  states.forget('known');
  expect(states.rowOf('known', now)).toBeUndefined();

  // A read that began before a forget() (of any client) is not kept: it may predate the change.
  const seen = states.changes;
  states.forget('someone');
  states.keepRow('known', row('known'), now, seen);
  expect(states.rowOf('known', now)).toBeUndefined();

  for (let i = 0; i < CLIENT_ROWS_KEPT + 10; i++) states.keepRow(`id-${i}`, undefined, now, states.changes);
  expect(states.rowOf('id-0', now)).toBeUndefined();
  expect(states.rowOf(`id-${CLIENT_ROWS_KEPT + 9}`, now)).toBeDefined();
});
