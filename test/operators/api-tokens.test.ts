/**
 * Named API tokens for automation: `shelfmark operators token create --name ci --role support` prints
 * a token once; it acts on the admin API with its role (actor type `api-token` in the audit log), is
 * kept only as a keyed hash, and is refused once revoked. Both engines.
 */
import { expect, it } from 'vitest';
import { cli, useCliEnvironment } from '../support/cli.js';
import { describeEachEngine } from '../support/engines.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';

describeEachEngine('named API tokens', (engine) => {
  const h = useHarness(engine, { options: { file: true } });
  useCliEnvironment(h, ADMIN_TOKEN);

  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  it('a token acts with its role, is audited as itself, and is stored only as a hash', async () => {
    const created = await cli(['operators', 'token', 'create', '--name', 'ci', '--role', 'support']);
    expect([created.code, created.stderr]).toEqual([0, 'API token created; it is shown only now\n']);
    const shown = JSON.parse(created.stdout);
    expect(shown).toEqual({
      id: expect.stringMatching(/^tok_[\w-]{16}$/),
      name: 'ci',
      role: 'support',
      status: 'active',
      createdAt: expect.any(String),
      lastUsedAt: null,
      token: expect.stringMatching(/^smt_tok_[\w-]{16}\.[\w-]{43}$/),
    });
    const { id: clientId } = (await h.asAdmin().post('/api/admin/v1/clients', { name: 'Noord' })).json();

    expect((await h.anonymous().get('/api/admin/v1/overview', { headers: as(shown.token) })).statusCode).toBe(200);
    const link = await h.anonymous().post(`/api/admin/v1/clients/${clientId}/portal-link`, undefined, {
      headers: as(shown.token),
    });
    expect(link.statusCode).toBe(201);
    const refused = await h.anonymous().post('/api/admin/v1/schools', { name: 'HU' }, { headers: as(shown.token) });
    expect(refused.json()).toMatchObject({ status: 403, code: 'forbidden', role: 'admin', yourRole: 'support' });

    const record = await h.database.db.kysely
      .selectFrom('audit_records')
      .select(['action', 'actor_type', 'actor_id', 'actor_name', 'role', 'target_id'])
      .where('action', '=', 'portal.link.created')
      .executeTakeFirstOrThrow();
    expect(record).toEqual({
      action: 'portal.link.created',
      actor_type: 'api-token',
      actor_id: shown.id,
      actor_name: 'ci',
      role: 'support',
      target_id: clientId,
    });
    const creation = await h.database.db.kysely
      .selectFrom('audit_records')
      .select(['actor_type', 'actor_id', 'target_id', 'changes'])
      .where('action', '=', 'api-token.created')
      .executeTakeFirstOrThrow();
    expect(creation).toEqual({
      actor_type: 'admin-token',
      actor_id: 'cli',
      target_id: shown.id,
      changes: JSON.stringify({
        name: { before: null, after: 'ci' },
        role: { before: null, after: 'support' },
        secret: { before: null, after: 'rotated' },
      }),
    });

    // Only a keyed hash of the secret is kept: the secret appears in no row.
    const secret = String(shown.token).split('.')[1];
    const rows = await h.database.db.kysely.selectFrom('api_tokens').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]?.last_used_at).toBe(h.clock.now());

    const listed = await cli(['operators', 'token', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([{ ...shown, token: undefined, lastUsedAt: expect.any(String) }]);
    expect(listed.stdout).not.toContain(secret);
  });

  it('a wrong secret, a revoked token and a taken name are refused', async () => {
    const { token } = JSON.parse(
      (await cli(['operators', 'token', 'create', '--name', 'nightly', '--role', 'viewer'])).stdout,
    );
    const forged = `${String(token).split('.')[0]}.${'x'.repeat(43)}`;
    const wrong = await h.anonymous().get('/api/admin/v1/overview', { headers: as(forged) });
    expect(wrong.json()).toMatchObject({
      status: 401,
      code: 'unauthenticated',
      detail: 'the API token is unknown or revoked',
    });

    const again = await cli(['operators', 'token', 'create', '--name', 'nightly', '--role', 'admin']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('a token named nightly exists');
    const badRole = await cli(['operators', 'token', 'create', '--name', 'x', '--role', 'owner']);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('--role must be one of viewer, support, admin, got "owner"');

    expect((await h.anonymous().get('/api/admin/v1/overview', { headers: as(token) })).statusCode).toBe(200);
    const revoked = await cli(['operators', 'token', 'revoke', 'nightly']);
    expect([revoked.code, revoked.stderr]).toEqual([0, 'API token nightly revoked\n']);
    const after = await h.anonymous().get('/api/admin/v1/overview', { headers: as(token) });
    expect(after.json()).toMatchObject({ status: 401, code: 'unauthenticated' });
    const audit = await h.database.db.kysely
      .selectFrom('audit_records')
      .select('action')
      .where('action', 'like', 'api-token.%')
      .orderBy('seq')
      .execute();
    expect(audit.map((row) => row.action)).toEqual(['api-token.created', 'api-token.revoked']);
  });
});
