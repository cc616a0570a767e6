/**
 * Each request's logger is made when the request first logs a line (src/observability/request-logger.ts): at
 * LOG_LEVEL=warn a successful request makes none, a failing one writes the same line as before, with
 * its request id and without credentials.
 */
import type { InjectOptions } from 'fastify';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { type App, buildApp } from '../../src/main/app.js';
import { loggerOptions } from '../../src/observability/logging.js';
import { freshDatabase, type TestDatabase } from '../support/engines.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { logLines } from '../support/log-lines.js';

let app: App | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await app?.close();
  await database?.drop();
});

async function appAt(level: 'warn' | 'info'): Promise<{ lines: string[]; children: () => number }> {
  database = await freshDatabase('sqlite');
  const lines: string[] = [];
  const logger = pino(loggerOptions(level), logLines(lines));
  let made = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof logger.child>) => {
    made++;
    return child(...args);
  }) as typeof logger.child;
  app = await buildApp(
    { config: testConfig({ adminToken: ADMIN_TOKEN, logLevel: level }), db: database.db, clock: new ManualClock() },
    { logger },
  );
  // A route that fails, declared like every other route.
  app.get('/test-failure', { config: { auth: 'public' }, schema: { hide: true } }, () => {
    throw new Error('the test route failed');
  });
  await app.ready();
  return { lines, children: () => made };
}

/** One request to an app at `level`: its response, the lines written, and the loggers made until just before it. */
async function requestAt(level: 'warn' | 'info', request: InjectOptions) {
  const { lines, children } = await appAt(level);
  const before = children();
  const response = await app?.inject(request);
  return { lines, children, before, response };
}

it('at warn, a successful request makes no logger and writes nothing', async () => {
  const { lines, children, before, response } = await requestAt('warn', {
    method: 'GET',
    url: '/.well-known/jwks.json?access_token=secret-value',
    headers: { authorization: 'Bearer secret-value' },
  });
  expect(response?.statusCode).toBe(200);
  expect(children()).toBe(before);
  expect(lines).toEqual([]);
});

it('at warn, a failing request writes its error line with its request id, and no credentials', async () => {
  const { lines, children, before, response } = await requestAt('warn', {
    method: 'GET',
    url: '/test-failure?access_token=secret-value',
    headers: { 'x-request-id': 'fails-1', authorization: 'Bearer secret-value' },
  });
  expect(response?.statusCode).toBe(500);
  expect(children()).toBe(before + 1);
  const written = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(written.map((line) => [line.level, line.reqId, line.msg])).toEqual([[50, 'fails-1', 'request failed']]);
  expect(written[0]).toMatchObject({ err: { type: 'Error', message: 'the test route failed' } });
  expect(JSON.stringify(written)).not.toContain('secret-value');
});

it('at info, every request gets its logger and both access lines, as before', async () => {
  const { lines, children, before } = await requestAt('info', {
    method: 'GET',
    url: '/api/v1/offers?eans=9789001891442',
    headers: { 'x-request-id': 'a-1' },
  });
  expect(children()).toBe(before + 1);
  const written = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(written.filter((line) => line.reqId === 'a-1').map((line) => line.msg)).toEqual([
    'incoming request',
    'request completed',
  ]);
});
