/**
 * Bad input: a fast-check fuzzer derived from /openapi.json sends malformed requests to the compiled
 * server (a separate process) over real sockets, on every route and method: broken JSON, wrong types,
 * 1 MB strings, NUL and unicode, invalid and 101+ EANs, garbage Basic/Bearer headers, wrong methods,
 * path tricks, duplicate parameters and odd content types, part of them with valid credentials.
 *
 * Phase 1 (refused): every request is malformed by construction; each must be refused with a 4xx
 * problem (RFC 6749 JSON on the token endpoint) and the database must be byte-for-byte unchanged.
 * Phase 2 (hostile values): well-typed bodies and parameters carrying NUL, unicode and long strings
 * with valid credentials; any status but a 5xx, always a problem document when refused.
 * Throughout: zero 5xx, the process stays up, and its memory stays bounded.
 */
import { Agent, request as httpRequest } from 'node:http';
import SwaggerParser from '@apidevtools/swagger-parser';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { describeEachEngine, freshDatabase, type TestDatabase } from '../support/engines.js';
import { ADMIN_TOKEN, basic } from '../support/harness.js';
import { ensureBuilt, type ServerProcess, startServer } from '../support/process.js';
import { SCALE } from './scale.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  maxLength?: number;
  pattern?: string;
};
interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: Record<string, Schema>;
  body: Schema | undefined;
  security: 'none' | 'bearer' | 'admin' | 'basic';
}
interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  route: string;
}

/** encodeURIComponent, except that a lone surrogate goes out as its raw (invalid) UTF-8 bytes. */
const enc = (value: string): string => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

const HUGE = 'x'.repeat(1024 * 1024);
const NUL_AND_UNICODE = [
  '\u0000',
  'a\u0000b',
  '😀'.repeat(50),
  '\u202e\u200b\ufeff',
  'ü̈̈̈̈',
  '\ud800',
  '%00',
  '../../etc/passwd',
  "' or 1=1 --",
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally
  '${jndi:x}',
  '\r\nX-Injected: 1',
];
const EANS = [
  '9780194837125',
  '978019483712',
  '9780194837126',
  'abc',
  '-1',
  '1e13',
  '0'.repeat(14),
  '97801948371259780194837125',
  ' 9780194837125 ',
];

const str = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string() },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 3, arbitrary: fc.constantFrom(...NUL_AND_UNICODE) },
    { weight: 1, arbitrary: fc.constant('') },
    // Rare: long enough that most places refuse it by size before anything deeper runs.
    { weight: 1, arbitrary: fc.constant('x'.repeat(5000)) },
  );

/** A value of the wrong JSON type for `schema` (always invalid). */
function wrongType(schema: Schema): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.oneof(fc.integer(), fc.boolean(), fc.constant({}), fc.constant([])),
    integer: fc.oneof(fc.string(), fc.double({ noInteger: true, noNaN: true }), fc.boolean(), fc.constant([1])),
    number: fc.oneof(fc.string(), fc.boolean(), fc.constant({})),
    boolean: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    array: fc.oneof(fc.string(), fc.integer(), fc.constant({})),
    object: fc.oneof(fc.string(), fc.integer(), fc.constant([])),
  };
  return all[type ?? 'object'] ?? fc.constant(Symbol.for('nope').toString());
}

/** A well-typed value for `schema` whose strings are hostile (NUL, unicode, long). */
function hostile(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map((s) => hostile(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return str();
    case 'integer':
      return fc.oneof(fc.integer(), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(-1));
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(1e308));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(hostile(schema.items ?? {}, depth + 1), { maxLength: 5 });
    default: {
      const props = schema.properties ?? {};
      if (depth > 3) return fc.constant({});
      return fc.record(Object.fromEntries(Object.entries(props).map(([name, s]) => [name, hostile(s, depth + 1)])), {
        requiredKeys: schema.required ?? [],
      });
    }
  }
}

/** A body that the schema must refuse (or that cannot be parsed at all). */
function malformedBody(schema: Schema | undefined): fc.Arbitrary<string> {
  const base: fc.Arbitrary<string>[] = [
    fc.constantFrom(
      '{',
      '{"a":',
      '[1,2',
      'nul',
      '{"name":"x",}',
      "{'a':1}",
      '\u0000',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '[]',
      '42',
      '"text"',
      'null',
      'true',
    ),
    fc.constant(`{"name":"${HUGE}"}`),
    fc.constant(`${'['.repeat(5000)}${']'.repeat(5000)}`),
    fc.string().map((s) => `{${s}`),
  ];
  const props = schema?.properties ?? {};
  const required = schema?.required ?? [];
  if (required.length > 0) {
    // A required member of the wrong type (other members well typed).
    base.push(
      fc
        .constantFrom(...required)
        .chain((name) =>
          fc
            .tuple(hostile(schema ?? {}), wrongType(props[name] ?? {}))
            .map(([body, bad]) => JSON.stringify({ ...(body as object), [name]: bad })),
        ),
    );
    base.push(fc.constant(JSON.stringify({})));
  }
  if (schema !== undefined)
    base.push(hostile(schema).map((body) => JSON.stringify({ ...(body as object), unexpectedMember: 1 })));
  return fc.oneof(...base);
}

const PATH_TRICKS = [
  '..',
  '%2e%2e',
  '%2e%2e%2f%2e%2e',
  '.',
  '%00',
  '%2F',
  '//',
  'a/../../b',
  '%ff',
  '%',
  '%E2%80%AE',
  'x'.repeat(300),
  '{id}',
  '*',
  ';jsessionid=1',
  `sub_${'0'.repeat(21)}`,
];

function pathFor(op: Operation, valueArb: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (op.pathParams.length === 0)
    return fc.oneof(
      fc.constant(op.path),
      fc.constantFrom(
        `${op.path}/`,
        `${op.path}//`,
        `/.${op.path}`,
        `${op.path}/..`,
        `${op.path}%00`,
        op.path.toUpperCase(),
        `${op.path}/extra`,
      ),
    );
  return fc.array(valueArb, { minLength: op.pathParams.length, maxLength: op.pathParams.length }).map((values) => {
    let path = op.path;
    op.pathParams.forEach((name, i) => {
      path = path.replace(`{${name}}`, values[i] ?? '');
    });
    return path;
  });
}

const pathValue = fc.oneof(
  fc.constantFrom(...PATH_TRICKS),
  fc.string().map(enc),
  fc.string({ unit: 'grapheme' }).map(enc),
);

function queryFor(op: Operation, hostileValues: boolean): fc.Arbitrary<string> {
  const names = Object.keys(op.query);
  const value = fc.oneof(
    { weight: 4, arbitrary: str().map(enc) },
    {
      weight: 3,
      arbitrary: fc.constantFrom('-1', '0', '1e999', 'NaN', 'true', '[]', '%00', '%', '%zz', '1&1', 'a%26b'),
    },
    {
      weight: 4,
      arbitrary: fc
        .array(fc.constantFrom(...EANS), { minLength: 0, maxLength: 5 })
        .map((eans) => eans.map(enc).join(',')),
    },
    {
      weight: 1,
      arbitrary: fc.constant(Array.from({ length: 101 }, (_, i) => `97801948${String(10000 + i)}`).join(',')),
    },
    { weight: 1, arbitrary: fc.constant(enc(HUGE.slice(0, 20_000))) },
  );
  const pair = fc.tuple(
    names.length > 0 && hostileValues
      ? fc.constantFrom(...names)
      : fc.oneof(
          ...(names.length > 0 ? [fc.constantFrom(...names)] : []),
          fc.constantFrom('take', 'eans', 'limit', '__proto__', 'a[b]', ''),
        ),
    value,
  );
  // Duplicate parameters come from picking the same name twice.
  return fc
    .array(pair, { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}`));
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/xml',
  '',
  'application/problem+json',
  '*/*',
  'application/json\u0000',
];

function garbageAuth(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      'Basic',
      'Basic ',
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic ${Buffer.from(':').toString('base64')}`,
      'Bearer',
      'Bearer ',
      'Bearer a.b.c',
      `Bearer ${'A'.repeat(3000)}`,
      'Digest x',
      'bearer x',
    ),
    fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
    fc
      .string({ maxLength: 200 })
      .filter((s) => /^[\x20-\x7e]*$/.test(s))
      .map((s) => `Bearer ${s}`),
    fc.constant(
      `Bearer ${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"x","client_id":"smc_x","scope":"offers:read lml:read webhooks:manage","exp":9999999999}').toString('base64url')}.`,
    ),
  );
}

interface Credentials {
  bearer: string;
  basic: string;
}

function requestArb(ops: Operation[], creds: Credentials, phase: 'refused' | 'hostile'): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...ops).chain((op) => {
    const mutating = op.method !== 'GET' && op.method !== 'HEAD';
    const validAuth =
      op.security === 'admin'
        ? `Bearer ${ADMIN_TOKEN}`
        : op.security === 'bearer'
          ? `Bearer ${creds.bearer}`
          : op.security === 'basic'
            ? creds.basic
            : undefined;
    // Refused phase: a mutating call with nothing malformed in it must not get valid credentials.
    const bodyless = op.body === undefined && op.pathParams.length === 0;
    const canAuth = validAuth !== undefined && !(phase === 'refused' && mutating && bodyless);
    const auth = canAuth
      ? fc.oneof({ weight: 2, arbitrary: fc.constant(validAuth) }, { weight: 1, arbitrary: garbageAuth() })
      : garbageAuth();
    const method =
      phase === 'refused' && mutating && op.body === undefined && op.pathParams.length === 0
        ? fc.constant(op.method)
        : fc.oneof(
            { weight: 4, arbitrary: fc.constant(op.method) },
            { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'POST', 'GET') },
          );
    const body =
      op.body === undefined
        ? fc.option(fc.constantFrom('{"a":1}', 'garbage', ''), { nil: undefined })
        : phase === 'refused'
          ? malformedBody(op.body)
          : hostile(op.body).map((value) => JSON.stringify(value));
    const path = phase === 'refused' ? pathFor(op, pathValue) : pathFor(op, str().map(enc));
    return fc
      .record({
        method,
        path,
        query: queryFor(op, phase === 'hostile'),
        auth,
        contentType: fc.constantFrom(...CONTENT_TYPES),
        body,
        extra: fc.option(fc.constantFrom('x-request-id', 'accept', 'cookie', 'x-forwarded-for'), { nil: undefined }),
      })
      .map((r): FuzzRequest => {
        const headers: Record<string, string> = {};
        if (r.auth !== undefined) headers.authorization = r.auth;
        // Node's client cannot frame a body on HEAD (the server would read it as the next request).
        if (r.method === 'HEAD') r.body = undefined;
        if (r.body !== undefined && r.contentType !== '') headers['content-type'] = r.contentType.replace('\u0000', '');
        if (r.extra !== undefined) headers[r.extra] = 'x'.repeat(r.extra === 'x-request-id' ? 500 : 10);
        // The refused phase must stay malformed: a body-carrying mutation always gets a bad body above.
        return {
          method: r.method,
          path: `${r.path}${r.query}`,
          headers,
          body: r.body,
          route: `${op.method} ${op.path}`,
        };
      });
  });
}

interface Outcome {
  status: number;
  contentType: string;
  body: string;
}

function send(base: URL, agent: Agent, request: FuzzRequest): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

/** Why an answer breaks the contract, or undefined when it keeps it. */
function violation(request: FuzzRequest, outcome: Outcome, phase: 'refused' | 'hostile'): string | undefined {
  if (outcome.status >= 500) return `${outcome.status} ${outcome.body.slice(0, 300)}`;
  const mutating = !['GET', 'HEAD', 'OPTIONS'].includes(request.method);
  if (phase === 'refused' && mutating && outcome.status < 400)
    return `a malformed ${request.method} was accepted with ${outcome.status}`;
  if (outcome.status < 400 || request.method === 'HEAD') return undefined;
  const onTokenEndpoint =
    request.path.split('?')[0] === '/api/auth/token' || request.path.split('?')[0] === '/api/auth/token/';
  let body: {
    type?: unknown;
    title?: unknown;
    status?: unknown;
    code?: unknown;
    error?: unknown;
    error_description?: unknown;
  };
  try {
    body = JSON.parse(outcome.body) as typeof body;
  } catch {
    return `error body is not JSON: ${outcome.body.slice(0, 200)}`;
  }
  if (onTokenEndpoint && typeof body.error === 'string' && typeof body.error_description === 'string') return undefined;
  if (!outcome.contentType.startsWith('application/problem+json')) return `error content-type ${outcome.contentType}`;
  if (
    typeof body.type !== 'string' ||
    typeof body.title !== 'string' ||
    body.status !== outcome.status ||
    typeof body.code !== 'string'
  )
    return `not a problem document: ${outcome.body.slice(0, 200)}`;
  return undefined;
}

async function dump(db: Db): Promise<string> {
  const tables = [
    'clients',
    'subscriptions',
    'offers',
    'schools',
    'lists',
    'events',
    'deliveries',
    'delivery_attempts',
    'settings',
    'signing_keys',
  ] as const;
  const parts: string[] = [];
  for (const table of tables) parts.push(JSON.stringify(await db.kysely.selectFrom(table).selectAll().execute()));
  return parts.join('\n');
}

async function operations(base: string): Promise<Operation[]> {
  const spec = (await SwaggerParser.dereference(
    (await (await fetch(`${base}/openapi.json`)).json()) as never,
  )) as unknown as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { in: string; name: string; schema: Schema }[];
          requestBody?: { content: Record<string, { schema: Schema }> };
          security?: Record<string, unknown>[];
        }
      >
    >;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: Object.fromEntries(params.filter((p) => p.in === 'query').map((p) => [p.name, p.schema])),
        body:
          op.requestBody === undefined
            ? undefined
            : (op.requestBody.content['application/json'] ?? Object.values(op.requestBody.content)[0])?.schema,
        security: schemes.includes('admin')
          ? 'admin'
          : schemes.includes('bearer')
            ? 'bearer'
            : schemes.includes('basic')
              ? 'basic'
              : 'none',
      });
    }
  }
  // Pages outside the API reference are routes too.
  for (const path of ['/dashboard', '/docs', '/docs/static/index.html', '/problems/not-found'])
    ops.push({ method: 'GET', path, pathParams: [], query: {}, body: undefined, security: 'none' });
  return ops;
}

async function rssMiB(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const match = /^shelfmark_process_resident_memory_bytes (\d+(\.\d+)?(e\+\d+)?)/m.exec(text);
  return match === null ? 0 : Number(match[1]) / 1024 / 1024;
}

describeEachEngine('fuzzing the API from its OpenAPI document', (engine) => {
  let database: TestDatabase;
  let server: ServerProcess;
  let base: string;
  let creds: Credentials;
  let ops: Operation[];

  beforeAll(async () => {
    ensureBuilt();
    database = await freshDatabase(engine, { file: true });
    // Limits high enough that the fuzz reaches deep code instead of stopping at a 429.
    server = startServer(database.url, {
      RATE_LIMIT_RATE: '1000000',
      AUTH_FAILURES_PER_ADDRESS: '1000000',
      AUTH_FAILURES_PER_CLIENT_ADDRESS: '100000',
      LOG_LEVEL: 'fatal',
    });
    base = await server.ready;
    const created = await fetch(`${base}/api/admin/v1/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"name":"Fuzz shop"}',
    });
    const client = (await created.json()) as { clientId: string; clientSecret: string };
    const token = (await (
      await fetch(`${base}/api/auth/token`, { headers: { authorization: basic(client.clientId, client.clientSecret) } })
    ).json()) as { access_token: string };
    creds = { bearer: token.access_token, basic: basic(client.clientId, client.clientSecret) };
    ops = await operations(base);
  }, 120_000);
  afterAll(async () => {
    await server?.kill();
    await database?.drop();
  });

  const run = async (
    phase: 'refused' | 'hostile',
    count: number,
  ): Promise<{ sent: number; fiveXX: number; statuses: Record<number, number>; violations: string[] }> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const url = new URL(base);
    const statuses: Record<number, number> = {};
    const violations: string[] = [];
    let sent = 0;
    let fiveXX = 0;
    try {
      // Violations are collected (not thrown), so a failure reports what broke without a 1 MB counterexample dump.
      await fc.assert(
        fc.asyncProperty(fc.array(requestArb(ops, creds, phase), { minLength: 8, maxLength: 8 }), async (batch) => {
          if (violations.length >= 5) return;
          // A reused keep-alive socket that the server closed (after a 413 or a parser refusal) is the client's
          // race, not an answer: such a request is sent once more on a fresh connection.
          const once = (request: FuzzRequest) =>
            send(url, agent, request).catch(() => send(url, new Agent({ keepAlive: false }), request));
          const outcomes = await Promise.all(
            batch.map((request) =>
              once(request).catch((error: Error) => ({ status: -1, contentType: '', body: error.message })),
            ),
          );
          outcomes.forEach((outcome, i) => {
            const request = batch[i];
            if (request === undefined) return;
            sent++;
            statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
            if (outcome.status >= 500) fiveXX++;
            const describe = `${request.route} ← ${request.method} ${JSON.stringify(request.path.slice(0, 200))} ${JSON.stringify(request.headers).slice(0, 200)} body ${JSON.stringify((request.body ?? '').slice(0, 200))}`;
            if (outcome.status === -1)
              violations.push(
                `${describe}: no answer (${outcome.body}); server alive: ${server.child.exitCode === null}`,
              );
            else {
              const problem = violation(request, outcome, phase);
              if (problem !== undefined) violations.push(`${describe}: ${problem}`);
            }
          });
        }),
        { numRuns: Math.ceil(count / 8), seed: Number(process.env.FUZZ_SEED ?? 20261123) },
      );
    } finally {
      agent.destroy();
    }
    return { sent, fiveXX, statuses, violations };
  };

  it(`phase 1: ${SCALE.fuzzRequests} malformed requests are all refused with problems; the database is unchanged`, async () => {
    const before = await dump(database.db);
    const rssBefore = await rssMiB(base);
    const { sent, fiveXX, statuses, violations } = await run('refused', SCALE.fuzzRequests);
    expect(violations).toEqual([]);
    expect(fiveXX).toBe(0);
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await dump(database.db)).toBe(before);
    const rssAfter = await rssMiB(base);
    console.log(
      `[fuzz refused, ${engine}] ${sent} requests, 5xx: ${fiveXX}, statuses ${JSON.stringify(statuses)}, RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MiB`,
    );
    expect(rssAfter).toBeLessThan(Math.max(rssBefore * 2, rssBefore + 200));
  }, 600_000);

  it(`phase 2: ${Math.ceil(SCALE.fuzzRequests / 4)} well-typed requests with hostile values never get a 5xx`, async () => {
    const { sent, fiveXX, statuses, violations } = await run('hostile', Math.ceil(SCALE.fuzzRequests / 4));
    expect(violations).toEqual([]);
    expect(fiveXX).toBe(0);
    expect(server.child.exitCode).toBeNull();
    console.log(`[fuzz hostile, ${engine}] ${sent} requests, 5xx: ${fiveXX}, statuses ${JSON.stringify(statuses)}`);
  }, 600_000);
});
