import { afterEach, beforeEach, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { cliInitiator } from '../../src/audit/initiator.js';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/services.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';

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
});
