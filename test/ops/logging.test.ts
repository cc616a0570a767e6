import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { type App, buildApp } from '../../src/main/app.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';
import { logLines } from '../support/log-lines.js';
import { bearerHeaders, requester } from '../support/requests.js';

// Log lines carry request ids, never credentials and never whole stack traces.
describeEachEngine('structured logs', (engine) => {
  let app: App;
  let database: TestDatabase;
  let lines: string[];

  beforeEach(async () => {
    database = await freshDatabase(engine);
    lines = [];
    const stream = logLines(lines);
    app = await buildApp(
      { config: testConfig({ adminToken: ADMIN_TOKEN, logLevel: 'info' }), db: database.db, clock: new ManualClock() },
      { logStream: stream },
    );
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    await database.drop().catch(() => undefined);
  });

  const asAdmin = () => requester(app, { authorization: `Bearer ${ADMIN_TOKEN}` });

  it('never writes credentials or secrets, and every request line has its request id', async () => {
    const created = await asAdmin().post('/api/admin/v1/clients', { name: 'Shop' });
    const client = created.json<{ clientId: string; clientSecret: string; webhookSecret: string }>();
    const token = await requester(app, {}).get('/api/auth/token', {
      headers: { authorization: basic(client.clientId, client.clientSecret), 'x-request-id': 'req-abc' },
    });
    await requester(app, bearerHeaders(token.json<{ access_token: string }>().access_token)).get(
      '/api/v1/offers?eans=9789001891442',
    );
    const text = lines.join('\n');
    expect(lines.length).toBeGreaterThan(4);
    for (const secret of [
      ADMIN_TOKEN,
      client.clientSecret,
      client.webhookSecret,
      token.json<{ access_token: string }>().access_token,
    ])
      expect(text).not.toContain(secret);
    const requestLines = lines
      .map((line) => JSON.parse(line) as { reqId?: string; msg: string })
      .filter((line) => line.msg === 'incoming request' || line.msg === 'request completed');
    expect(requestLines.every((line) => typeof line.reqId === 'string')).toBe(true);
    expect(requestLines.some((line) => line.reqId === 'req-abc')).toBe(true);
  });

  it('/healthz and /readyz requests are not logged at info; other requests are', async () => {
    for (const probe of ['/healthz', '/readyz']) expect((await requester(app, {}).get(probe)).statusCode).toBe(200);
    expect((await requester(app, {}).get('/api/lml/v1/schools')).statusCode).toBe(401);
    const urls = lines
      .map((line) => JSON.parse(line) as { msg: string; url?: string; reqId?: string })
      .filter((line) => line.msg === 'incoming request')
      .map((line) => line.url);
    expect(urls).toEqual(['/api/lml/v1/schools']);
    expect(lines.join('\n')).not.toMatch(/healthz|readyz/);
  });

  it('a server error is logged with its class and message but without a stack trace', async () => {
    await database.db.close();
    const response = await asAdmin().get('/api/admin/v1/clients');
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
    const errorLine = lines
      .map(
        (line) =>
          JSON.parse(line) as { level: number; reqId?: string; err?: { type: string; message: string; stack: string } },
      )
      .find((line) => line.level === 50);
    expect(errorLine?.reqId).toBe(response.json<{ instance: string }>().instance);
    expect(errorLine?.err?.type).toBeTypeOf('string');
    expect(errorLine?.err?.stack).not.toContain('\n');
  });
});
