/**
 * Roles on every admin operation: the test walks the OpenAPI document's admin operations and calls
 * each as a viewer, a support operator and an admin (console sessions of operators, with their CSRF
 * token), with a support API token, with the admin token, and with no credentials. Below the route's role the answer is 403
 * `forbidden` naming the role needed; at or above it anything but 401/403 (the dummy ids and bodies
 * make most of them 404 or 400); without credentials 401. The expected role of each operation is
 * written here, not read from the document, so a route that changes its role fails this test.
 */
import Fastify from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { cliInitiator } from '../../src/audit/initiator.js';
import { registerRouteBehaviour } from '../../src/http/route-behaviour.js';
import { ROLES, type Role } from '../../src/vocabulary/actor.js';
import { describeEachEngine } from '../support/engines.js';
import { useHarness } from '../support/use-harness.js';

/** Every admin operation by method and path, and the least role that may call it. */
const EXPECTED: Record<string, Role> = {
  'GET /api/admin/v1/clients': 'viewer',
  'POST /api/admin/v1/clients': 'admin',
  'GET /api/admin/v1/clients/{id}': 'viewer',
  'DELETE /api/admin/v1/clients/{id}': 'admin',
  'POST /api/admin/v1/clients/{id}/secret': 'admin',
  'POST /api/admin/v1/clients/{id}/webhook-secret': 'admin',
  'POST /api/admin/v1/clients/{id}/portal-link': 'support',
  'GET /api/admin/v1/deliveries': 'viewer',
  'GET /api/admin/v1/deliveries/{id}': 'viewer',
  'POST /api/admin/v1/deliveries/{id}/retry': 'support',
  'POST /api/admin/v1/deliveries/{id}/send-now': 'support',
  'GET /api/admin/v1/subscriptions': 'viewer',
  'POST /api/admin/v1/subscriptions': 'admin',
  'GET /api/admin/v1/subscriptions/{id}': 'viewer',
  'POST /api/admin/v1/subscriptions/{id}/recover': 'support',
  'POST /api/admin/v1/subscriptions/{id}/enable': 'support',
  'POST /api/admin/v1/subscriptions/{id}/recover-failed': 'support',
  'POST /api/admin/v1/subscriptions/{id}/replay': 'support',
  'GET /api/admin/v1/schools': 'viewer',
  'POST /api/admin/v1/schools': 'admin',
  'GET /api/admin/v1/schools/{identifier}': 'viewer',
  'PATCH /api/admin/v1/schools/{identifier}': 'admin',
  'GET /api/admin/v1/lists': 'viewer',
  'POST /api/admin/v1/lists': 'admin',
  'GET /api/admin/v1/lists/{identifier}': 'viewer',
  'PATCH /api/admin/v1/lists/{identifier}': 'admin',
  'POST /api/admin/v1/lists/{identifier}/status': 'admin',
  'GET /api/admin/v1/offers': 'viewer',
  'POST /api/admin/v1/offers': 'admin',
  'GET /api/admin/v1/offers/{id}': 'viewer',
  'PATCH /api/admin/v1/offers/{id}': 'admin',
  'DELETE /api/admin/v1/offers/{id}': 'admin',
  'GET /api/admin/v1/overview': 'viewer',
  'GET /api/admin/v1/subscription-health': 'viewer',
  'GET /api/admin/v1/storage': 'viewer',
  'GET /api/admin/v1/audit': 'viewer',
  'GET /api/admin/v1/operators': 'admin',
  'POST /api/admin/v1/operators/{sub}/disable': 'admin',
  'POST /api/admin/v1/operators/{sub}/enable': 'admin',
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describeEachEngine('roles on every admin operation', (engine) => {
  const h = useHarness(engine);

  it('each role may call what its role allows, and is refused the rest with 403 naming the role', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenAPIV3_1.Document>();
    const operations: { key: string; method: string; path: string; declared: unknown }[] = [];
    for (const [path, item] of Object.entries(doc.paths ?? {}))
      for (const method of METHODS) {
        const operation = item?.[method] as (OpenAPIV3_1.OperationObject & { 'x-operator-role'?: unknown }) | undefined;
        if (operation === undefined || !JSON.stringify(operation.security ?? []).includes('"admin"')) continue;
        operations.push({
          key: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          declared: operation['x-operator-role'],
        });
      }
    // Every admin operation of the document is in the table, with the role the document states.
    expect(operations.map((op) => op.key).filter((key) => EXPECTED[key] === undefined)).toEqual([]);
    expect(operations.filter((op) => op.declared !== EXPECTED[op.key]).map((op) => op.key)).toEqual([]);
    expect(operations.length).toBeGreaterThanOrEqual(37);

    const identities: [string, Role | 'token' | 'none', Record<string, string>][] = [
      ['admin token', 'token', h.admin],
      ['nobody', 'none', {}],
    ];
    for (const role of ROLES) {
      const { sessionId, session } = await h.services.webSessions.startConsole({
        issuer: 'https://idp.example',
        sub: `${role}-sub`,
        email: `${role}@example.test`,
        name: role,
        role,
      });
      identities.push([role, role, { cookie: `shelfmark_console=${sessionId}`, 'x-csrf-token': session.csrfToken }]);
    }
    // A named API token acts with its own role, as a session does.
    const { token } = await h.services.operators.apiTokens.create('matrix', 'support', cliInitiator());
    identities.push(['support API token', 'support', { authorization: `Bearer ${token}` }]);

    const outcomes: string[] = [];
    for (const op of operations) {
      const url = op.path.replace(/\{[^}]+\}/g, 'no-such-id');
      const needed = EXPECTED[op.key] as Role;
      for (const [who, role, headers] of identities) {
        const reply = await h.app.inject({
          method: op.method as 'GET',
          url,
          headers,
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { payload: {} }),
        });
        const allowed = role === 'token' || (role !== 'none' && ROLES.indexOf(role) >= ROLES.indexOf(needed));
        const status = reply.statusCode;
        if (role === 'none') {
          if (status !== 401) outcomes.push(`${op.key} as ${who}: ${status}, expected 401`);
        } else if (allowed) {
          if (status === 401 || status === 403) outcomes.push(`${op.key} as ${who}: ${status} ${reply.body}`);
        } else {
          const body = reply.json();
          if (status !== 403 || body.code !== 'forbidden' || body.role !== needed || body.yourRole !== role)
            outcomes.push(`${op.key} as ${who}: ${status} ${reply.body}, expected 403 forbidden needing ${needed}`);
        }
      }
    }
    expect(outcomes).toEqual([]);
  });

  it("a viewer's refusal names the role needed and theirs", async () => {
    const { sessionId, session } = await h.services.webSessions.startConsole({
      issuer: 'https://idp.example',
      sub: 'v',
      email: 'v@example.test',
      name: 'Vera Viewer',
      role: 'viewer',
    });
    const reply = await h.anonymous().post(
      '/api/admin/v1/schools',
      { name: 'X' },
      {
        headers: { cookie: `shelfmark_console=${sessionId}`, 'x-csrf-token': session.csrfToken },
      },
    );
    expect(reply.json()).toEqual({
      type: '/problems/forbidden',
      title: 'Your operator role does not allow this',
      status: 403,
      detail: 'this needs the admin role; you act as viewer',
      instance: expect.any(String),
      code: 'forbidden',
      role: 'admin',
      yourRole: 'viewer',
    });
    expect(await h.database.db.kysely.selectFrom('schools').selectAll().execute()).toEqual([]);
  });
});

describe('role declarations', () => {
  it('an admin route without a role stops the start', async () => {
    const app = Fastify();
    registerRouteBehaviour(app, {
      guardFor: () => ({}),
      idempotency: { before: async () => undefined, after: async (_request, _reply, payload) => payload },
    });
    expect(() => app.get('/api/admin/v1/anything', { config: { auth: 'admin' } }, async () => 'no')).toThrow(
      'GET /api/admin/v1/anything is an admin route but declares no operator role (config.role: viewer, support or admin)',
    );
    expect(() => app.get('/api/v1/anything', { config: { auth: 'public', role: 'viewer' } }, async () => 'no')).toThrow(
      'GET /api/v1/anything declares an operator role but its auth is not admin',
    );
    await app.close();
  });
});
