/**
 * The API document, taken at its word: for every operation of /openapi.json (the partner API with a
 * client's bearer token, the admin API with the admin token, the public pages), fast-check makes
 * requests from the operation's own request schemas, seeded, a fixed number per operation. Those the
 * document calls valid are accepted (a 2xx, or a 404/409/422 for a reason the document names); those
 * with one part broken are refused with a documented 4xx problem. Every answer matches the document
 * (the harness's contract recorder, asserted here after each request). Then each create is followed
 * along the links the document declares, with the values its answer gives.
 */
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import type { LookupFn } from '../../src/delivery/ssrf.js';
import { CURSOR_PATTERN } from '../../src/events/feed-cursor.js';
import { EAN_LIST_PATTERN, EAN_PATTERN } from '../../src/vocabulary/ean.js';
import { eanOf } from '../support/ean.js';
import { describeEachEngine } from '../support/engines.js';
import { createClientWithToken, createHarness } from '../support/harness.js';
import {
  type ApiDocument,
  type Call,
  linkValue,
  type Operation,
  operationsOf,
  RequestArbitraries,
  send,
  unnamedRefusal,
} from '../support/openapi-requests.js';
import type { Reply } from '../support/requests.js';
import { type Known, SchemaArbitraries } from '../support/schema-arbitrary.js';
import { useSharedHarness } from '../support/use-harness.js';

/** Printed by fast-check with any failure; run again with it to see the same requests. */
const SEED = Number(process.env.PROPERTY_SEED ?? 4242);
const VALID_RUNS = 20;
const BROKEN_RUNS = 20;

/** Feed cursors anywhere in an answer, with their quotes. */
const CURSORS = new RegExp(`"${CURSOR_PATTERN.slice(1, -1)}"`, 'g');

/** Every notification host resolves to a public address: the DNS is not what these requests test. */
const anyHostIsPublic: LookupFn = async () => [{ address: '93.184.215.14', family: 4 }];

/**
 * References the document states in words ("identifier of an existing school"): the create whose
 * answer gives such a value, by the name of the property or parameter that takes it. An unknown
 * school or list is refused with 400 validation-failed (`only`: drawn from what exists); an unknown
 * client or subscription is a documented 404.
 */
const REFERENCES: Record<string, { from: string; pointer: string; only?: true }> = {
  school: { from: 'adminCreateSchool', pointer: '$response.body#/identifier', only: true },
  list: { from: 'adminCreateList', pointer: '$response.body#/identifier', only: true },
  clientId: { from: 'adminCreateClient', pointer: '$response.body#/id' },
  subscriptionId: { from: 'adminCreateSubscription', pointer: '$response.body#/id' },
};

/**
 * The token endpoint answers in RFC 6749's terms (its own error JSON, credentials in a header or the
 * body) rather than with problems; its own tests hold it (test/auth).
 */
const LEFT_OUT = new Set(['getToken', 'createToken']);

/** A failed property: the operation, the answer that broke it, and fast-check's seed and counterexample. */
const report = <T>(operation: Operation, result: fc.RunDetails<T>): string => {
  const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
  return `${operation.id}: ${error}\n${fc.defaultReportMessage(result)}`;
};

describeEachEngine('the server does what its API document says', (engine) => {
  const h = useSharedHarness(engine, {
    create: (e) => createHarness(e, { rateLimitRate: 0 }, { deps: { dnsLookup: anyHostIsPublic } }),
  });
  let doc: ApiDocument;
  let operations: Operation[];
  let bearer: Record<string, string>;
  let requests: RequestArbitraries;
  /** Values the server gave, by where they go: `operationId path name` (links) or a REFERENCES name. */
  const seen = new Map<string, string[]>();
  const remember = (key: string, value: string | undefined) => {
    if (value !== undefined) seen.set(key, [...(seen.get(key) ?? []), value]);
  };

  const known = (at: readonly string[], pattern: unknown): Known | undefined => {
    if (pattern === EAN_PATTERN) return { only: fc.integer({ min: 1, max: 999_999 }).map((n) => eanOf(n)) };
    if (pattern === EAN_LIST_PATTERN)
      return {
        only: fc
          .array(fc.integer({ min: 1, max: 999_999 }), { minLength: 1, maxLength: 5 })
          .map((ns) => ns.map((n) => eanOf(n)).join(',')),
      };
    const [operation, where, name] = at;
    // A long poll holds its answer for up to `wait` real seconds: the feed is asked without waiting.
    if (operation === 'listEvents' && name === 'wait') return { only: fc.constant(0) };
    // A filter applies to offer events only, a rule its description states in words: left out here.
    if (where === 'body' && name === 'filter') return { only: fc.constant(undefined) };
    // Positions the server hands out (a page's last id, a feed cursor): only ones it gave are valid.
    if (pattern === CURSOR_PATTERN) return { only: drawn('feed cursor') };
    if (name === 'starting_after' || name === 'ending_before') return { only: drawn(`${operation} page`) };
    const key = where === 'path' ? `${operation} path ${name}` : String(at.at(-1));
    if (where === 'path') return { often: drawn(key) };
    const reference = REFERENCES[key];
    if (reference === undefined) return undefined;
    return reference.only === true ? { only: drawn(key) } : { often: drawn(key) };
  };
  /** One of the values seen under `key`, read when drawn (they grow as the run goes); undefined leaves it out. */
  const drawn = (key: string): fc.Arbitrary<unknown> =>
    fc.nat().map((n) => {
      const values = seen.get(key) ?? [];
      return values[n % Math.max(1, values.length)];
    });

  beforeAll(async () => {
    doc = (await h.anonymous().get('/openapi.json')).json<ApiDocument>();
    operations = operationsOf(doc).filter((operation) => !LEFT_OUT.has(operation.id));
    const schemas = new SchemaArbitraries({
      components: doc.components,
      known: (schema, at) => known(at, schema.pattern),
    });
    requests = new RequestArbitraries(schemas);
    bearer = (await createClientWithToken(h, 'Property shop', ['offers:read', 'lml:read', 'webhooks:manage'])).bearer;
  });

  /** What is wrong with the answer to a request the document calls valid, or null. */
  const notAccepted = (operation: Operation, call: Call, reply: Reply): string | null => {
    const status = reply.statusCode;
    if (status >= 200 && status < 300) return null;
    if (status === 304 && call.header['if-none-match'] !== undefined) return null;
    if (status === 404 || status === 409 || status === 422) return unnamedRefusal(operation, reply);
    return `a valid request answered ${status}: ${reply.body.slice(0, 300)}`;
  };

  /** Sends `call` and throws when the answer is outside the document or `verdict` finds it wrong. */
  const exchange = async (
    operation: Operation,
    call: Call,
    verdict: (reply: Reply) => string | null,
  ): Promise<Reply> => {
    const before = h.violations.length;
    const reply = await send(h, operation, call, bearer);
    const wrong = [...h.violations.slice(before), verdict(reply)].filter((x) => x !== null);
    if (wrong.length > 0) throw new Error(`${operation.method} ${operation.path}: ${wrong.join('; ')}`);
    return reply;
  };

  /** Remembers what a 2xx answer feeds: its links' values and the references it is the source of. */
  const learn = (operation: Operation, reply: Reply) => {
    if (reply.statusCode < 200 || reply.statusCode >= 300) return;
    if (!String(reply.headers['content-type']).startsWith('application/json')) return;
    const body: unknown = reply.json();
    const page = (body as { data?: unknown }).data;
    if (Array.isArray(page))
      for (const item of page as Record<string, unknown>[])
        remember(`${operation.id} page`, String(item.id ?? item.identifier));
    for (const text of JSON.stringify(body).match(CURSORS) ?? []) remember('feed cursor', text.slice(1, -1));
    for (const link of Object.values(operation.responses[String(reply.statusCode)]?.links ?? {}))
      for (const [name, expression] of Object.entries(link.parameters ?? {}))
        remember(`${link.operationId} path ${name}`, linkValue(expression, body));
    for (const [name, reference] of Object.entries(REFERENCES))
      if (reference.from === operation.id) remember(name, linkValue(reference.pointer, body));
  };

  const creates = () =>
    operations.filter((operation) =>
      Object.values(operation.responses).some((response) => Object.keys(response.links ?? {}).length > 0),
    );

  it('a create the document links from answers 2xx, and each link it declares leads to a documented answer', async () => {
    const followed: string[] = [];
    for (const create of creates()) {
      // One to keep for the later requests to refer to, and one to walk (its links may end it).
      learn(create, await firstAccepted(create, requests.valid(create)));
      const reply = await firstAccepted(create, requests.valid(create));
      expect(reply.statusCode, `${create.id} accepted one of its valid requests`).toBeLessThan(300);
      learn(create, reply);
      const links = Object.values(create.responses[String(reply.statusCode)]?.links ?? {});
      // Whatever ends the resource goes last, so every other link finds it.
      const target = (id: string) => operations.find((operation) => operation.id === id);
      const ordered = links.sort(
        (a, b) =>
          Number(target(a.operationId)?.method === 'DELETE') - Number(target(b.operationId)?.method === 'DELETE'),
      );
      for (const link of ordered) {
        const operation = target(link.operationId);
        if (operation === undefined) throw new Error(`${create.id} links to ${link.operationId}, not an operation`);
        const fixed = Object.fromEntries(
          Object.entries(link.parameters ?? {}).map(([name, expression]) => [
            name,
            linkValue(expression, reply.json()) ?? '',
          ]),
        );
        const [call] = fc.sample(requests.valid(operation, fixed), { seed: SEED, numRuns: 1 });
        if (call === undefined) throw new Error(`no request for ${operation.id}`);
        const answer = await exchange(operation, call, (r) =>
          r.statusCode < 300 ? null : notAccepted(operation, call, r),
        );
        learn(operation, answer);
        followed.push(`${create.id} → ${operation.id} ${answer.statusCode}`);
      }
    }
    expect(followed.length).toBeGreaterThan(0);
    expect(h.violations).toEqual([]);
  });

  /** The first answer among a few valid requests that is a 2xx (a random body may name a missing school). */
  const firstAccepted = async (operation: Operation, calls: fc.Arbitrary<Call>): Promise<Reply> => {
    let last: Reply | undefined;
    for (const call of fc.sample(calls, { seed: SEED, numRuns: 10 })) {
      last = await exchange(operation, call, (r) => notAccepted(operation, call, r));
      if (last.statusCode < 300) return last;
    }
    if (last === undefined) throw new Error(`no request for ${operation.id}`);
    return last;
  };

  it('every operation accepts the requests its document calls valid', async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      const result = await fc.check(
        fc.asyncProperty(requests.valid(operation), async (call) => {
          const reply = await exchange(operation, call, (r) => notAccepted(operation, call, r));
          learn(operation, reply);
        }),
        { seed: SEED, numRuns: VALID_RUNS },
      );
      if (result.failed) failures.push(report(operation, result));
    }
    expect(failures).toEqual([]);
  });

  it('every operation refuses a request with one part broken with a documented problem', async () => {
    const failures: string[] = [];
    let covered = 0;
    for (const operation of operations) {
      const broken = requests.broken(operation);
      if (broken === undefined) continue;
      covered += 1;
      const result = await fc.check(
        fc.asyncProperty(broken, async ({ call, broken: what }) => {
          await exchange(operation, call, (reply) => {
            if (reply.statusCode < 400 || reply.statusCode >= 500 || [401, 403, 429].includes(reply.statusCode))
              return `${what}: answered ${reply.statusCode} ${reply.body.slice(0, 200)}`;
            const refusal = unnamedRefusal(operation, reply);
            return refusal === null ? null : `${what}: ${refusal}`;
          });
        }),
        { seed: SEED, numRuns: BROKEN_RUNS },
      );
      if (result.failed) failures.push(report(operation, result));
    }
    expect(covered).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  });
});
