/** The token endpoint's malformed-request table: every case is 400 invalid_request in RFC 6749 JSON, never a 5xx. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testConfig } from '../../src/config.js';
import { type App, buildApp } from '../../src/main/app.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const ASK_FOR_FORM = 'send grant_type=client_credentials as an application/x-www-form-urlencoded body';

const cases: [name: string, headers: Record<string, string>, payload: string | undefined, description: string][] = [
  ['no body at all', {}, undefined, ASK_FOR_FORM],
  ['Content-Type: text/plain', { 'content-type': 'text/plain' }, 'grant_type=client_credentials', ASK_FOR_FORM],
  [
    'Content-Type: application/xml',
    { 'content-type': 'application/xml' },
    '<grant_type/>',
    'send the parameters as application/x-www-form-urlencoded (RFC 6749 §4.4.2)',
  ],
  [
    'malformed JSON',
    { 'content-type': JSON_TYPE },
    '{"grant_type":',
    'the body is not valid JSON; send application/x-www-form-urlencoded',
  ],
  [
    'an empty JSON body',
    { 'content-type': JSON_TYPE },
    '',
    'the body is not valid JSON; send application/x-www-form-urlencoded',
  ],
  ['JSON null', { 'content-type': JSON_TYPE }, 'null', ASK_FOR_FORM],
  ['a JSON array', { 'content-type': JSON_TYPE }, '["client_credentials"]', ASK_FOR_FORM],
  ['a JSON string', { 'content-type': JSON_TYPE }, '"grant_type=client_credentials"', ASK_FOR_FORM],
  [
    '{"grant_type":123}',
    { 'content-type': JSON_TYPE },
    '{"grant_type":123}',
    'grant_type must be string (each parameter once, as text)',
  ],
  [
    '{"client_id":{"a":1}}',
    { 'content-type': JSON_TYPE },
    '{"grant_type":"client_credentials","client_id":{"a":1},"client_secret":"x"}',
    'client_id must be string (each parameter once, as text)',
  ],
  [
    'a repeated form field',
    { 'content-type': FORM },
    'grant_type=client_credentials&grant_type=client_credentials',
    'grant_type must be string (each parameter once, as text)',
  ],
  [
    'a repeated scope',
    { 'content-type': FORM },
    'grant_type=client_credentials&scope=a&scope=b',
    'scope must be string (each parameter once, as text)',
  ],
  [
    'a form body over the size limit',
    { 'content-type': FORM },
    `grant_type=client_credentials&pad=${'x'.repeat(20 * 1024)}`,
    'the request body is too large',
  ],
];

describeEachEngine('token endpoint: malformed requests', (engine) => {
  let app: App;
  let database: TestDatabase;
  const logged: string[] = [];

  beforeAll(async () => {
    database = await freshDatabase(engine);
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    app = await buildApp(
      {
        config: testConfig({ adminToken: 'test-admin-token-0123456789', logLevel: 'error' }),
        db: database.db,
        clock: new ManualClock(),
      },
      { logStream },
    );
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it.each(cases)('%s → 400 invalid_request', async (_name, headers, payload, description) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers,
      ...(payload === undefined ? {} : { payload }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: description });
  });

  it('logged no error for any of them', () => {
    expect(logged.filter((line) => line.includes('"level":50'))).toEqual([]);
  });
});
