import { afterEach, beforeEach, expect, it } from 'vitest';
import { cliInitiator } from '../../src/audit/initiator.js';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { type App, buildApp } from '../../src/main/app.js';
import { createServices, type Services } from '../../src/main/services.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';

/** A console session opened with `token` on `app`: its cookie and CSRF token. */
const signIn = async ({ app }: { app: App }, token: string) => {
  const response = await app.inject({ method: 'POST', url: '/dashboard/api/session', payload: { token } });
  expect(response.statusCode).toBe(200);
  const cookie = String(response.headers['set-cookie']).split(';')[0] ?? '';
  return { cookie, csrf: response.json<{ csrfToken: string }>().csrfToken };
};
const createsClient = async ({ app }: { app: App }, session: { cookie: string; csrf: string }) =>
  (
    await app.inject({
      method: 'POST',
      url: '/api/admin/v1/clients',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      payload: { name: 'Shop' },
    })
  ).statusCode;

// Without ADMIN_TOKEN the first node generates one; every node shares it through the database.
describeEachEngine('generated admin token', (engine) => {
  let database: TestDatabase;
  let clock: ManualClock;
  let apps: App[];

  beforeEach(async () => {
    database = await freshDatabase(engine);
    clock = new ManualClock();
    apps = [];
  });
  afterEach(async () => {
    for (const app of apps) await app.close();
    await database.drop();
  });

  /** A node: the app and its service graph. */
  const node = async (): Promise<{ app: App; services: Services }> => {
    const deps = { config: testConfig(), db: database.db, clock };
    const services = await createServices(deps);
    const app = await buildApp({ ...deps, services }, { logger: false });
    apps.push(app);
    return { app, services };
  };
  const status = async ({ app }: { app: App }, token: string) =>
    (await app.inject({ method: 'GET', url: '/api/admin/v1/clients', headers: { authorization: `Bearer ${token}` } }))
      .statusCode;

  it('is generated once, stored only as a hash, and accepted by every node', async () => {
    const first = await node();
    const token = first.services.generatedAdminToken ?? '';
    expect(token).toMatch(/^sma_[0-9A-Za-z]{43}$/);
    const second = await node();
    expect(second.services.generatedAdminToken).toBeUndefined();
    const stored = await database.db.kysely
      .selectFrom('settings')
      .selectAll()
      .where('key', '=', 'admin_token_hash')
      .executeTakeFirstOrThrow();
    expect(stored.value).not.toContain(token);
    expect(await status(first, token)).toBe(200);
    expect(await status(second, token)).toBe(200);
    expect(await status(second, 'sma_wrong')).toBe(401);
  });

  it('a reset on one node is refused everywhere within 5 seconds', async () => {
    const first = await node();
    const old = first.services.generatedAdminToken ?? '';
    const second = await node();
    expect(await status(second, old)).toBe(200);
    const fresh = await first.services.resetAdminToken(cliInitiator());
    expect(await status(first, fresh)).toBe(200);
    expect(await status(first, old)).toBe(401);
    clock.advance(5000);
    expect(await status(second, old)).toBe(401);
    expect(await status(second, fresh)).toBe(200);
  });

  it('a reset ends the console sessions the old token opened, on every node, and records how many', async () => {
    const first = await node();
    const second = await node();
    const old = first.services.generatedAdminToken ?? '';
    const session = await signIn(second, old);
    expect(await createsClient(second, session)).toBe(201);
    await first.services.resetAdminToken(cliInitiator());
    expect(await createsClient(second, session)).toBe(401);
    expect(await createsClient(first, session)).toBe(401);
    const [record] = await database.db.kysely
      .selectFrom('audit_records')
      .select(['actor_type', 'changes'])
      .where('action', '=', 'admin-token.reset')
      .execute();
    expect(record?.actor_type).toBe('admin-token');
    expect(JSON.parse(String(record?.changes))).toEqual({
      token: { before: 'rotated', after: 'rotated' },
      consoleSessionsEnded: { before: null, after: 1 },
    });
  });
});

describeEachEngine('configured admin token', (engine) => {
  let database: TestDatabase;
  const apps: App[] = [];
  beforeEach(async () => {
    database = await freshDatabase(engine);
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await database.drop();
  });
  const start = async (adminToken: string): Promise<{ app: App; services: Services }> => {
    const deps = { config: testConfig({ adminToken }), db: database.db, clock: new ManualClock() };
    const services = await createServices(deps);
    const app = await buildApp({ ...deps, services }, { logger: false });
    apps.push(app);
    return { app, services };
  };
  const resets = () =>
    database.db.kysely
      .selectFrom('audit_records')
      .select(['actor_type', 'changes'])
      .where('action', '=', 'admin-token.reset')
      .execute();

  it('a start with another ADMIN_TOKEN ends the sessions the old one opened; the same one keeps them', async () => {
    const first = await start('configured-token-one-0123456789');
    const session = await signIn(first, 'configured-token-one-0123456789');
    expect(await resets()).toEqual([]);
    const again = await start('configured-token-one-0123456789');
    expect(await createsClient(again, session)).toBe(201);
    const replaced = await start('configured-token-two-0123456789');
    expect(await createsClient(replaced, session)).toBe(401);
    expect(await createsClient(first, session)).toBe(401);
    const records = await resets();
    expect(records.map((record) => [record.actor_type, JSON.parse(String(record.changes))])).toEqual([
      ['system', { token: { before: 'rotated', after: 'rotated' }, consoleSessionsEnded: { before: null, after: 1 } }],
    ]);
  });
});
