/** LOG_REQUESTS: every request (default), only 4xx/5xx answers, or none; never the headers. */
import { afterEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { type LogRequests, testConfig } from '../../src/config.js';
import { type App, buildApp } from '../../src/main/app.js';
import { freshDatabase, type TestDatabase } from '../support/engines.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { logLines } from '../support/log-lines.js';

let app: App | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await app?.close();
  await database?.drop();
});

async function linesFor(mode: LogRequests): Promise<Record<string, unknown>[]> {
  database = await freshDatabase('sqlite');
  const raw: string[] = [];
  app = await buildApp(
    {
      config: testConfig({ adminToken: ADMIN_TOKEN, logLevel: 'info', logRequests: mode }),
      db: database.db,
      clock: new ManualClock(),
    },
    { logStream: logLines(raw) },
  );
  await app.inject({
    method: 'GET',
    // Not /healthz: the probes are logged at warn only.
    url: '/.well-known/oauth-authorization-server',
    headers: { 'x-request-id': 'ok-1', authorization: 'Bearer secret-value' },
  });
  await app.inject({ method: 'GET', url: '/nowhere?x=1', headers: { 'x-request-id': 'missing-1' } });
  const lines = raw.map((line) => JSON.parse(line) as Record<string, unknown>);
  return lines.filter((line) => line.msg === 'incoming request' || line.msg === 'request completed');
}

it('all: a start and an end line per request, with method, URL, status and time but no headers', async () => {
  const lines = await linesFor('all');
  expect(lines.map((line) => [line.reqId, line.msg])).toEqual([
    ['ok-1', 'incoming request'],
    ['ok-1', 'request completed'],
    ['missing-1', 'incoming request'],
    ['missing-1', 'request completed'],
  ]);
  expect(lines[0]).toMatchObject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
  expect(lines[1]).toMatchObject({ statusCode: 200 });
  expect(typeof lines[1]?.responseTime).toBe('number');
  expect(JSON.stringify(lines)).not.toContain('secret-value');
});

it('errors: one line for each 4xx/5xx answer, naming the request; nothing for successes', async () => {
  const lines = await linesFor('errors');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    reqId: 'missing-1',
    msg: 'request completed',
    method: 'GET',
    url: '/nowhere?x=1',
    statusCode: 404,
  });
});

it('none: no access lines at all', async () => {
  expect(await linesFor('none')).toEqual([]);
});
