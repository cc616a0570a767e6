/**
 * Operator sign-in through a real OpenID provider (oidc-provider in its own process): the fixed
 * endpoints, the session they open, every refusal (state, replayed code, nonce, issuer, no role,
 * disabled) with no session created, a role change at the provider at the next sign-in, and the
 * provider's logout. Both engines.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { describeEachEngine } from '../support/engines.js';
import { createHarness } from '../support/harness.js';
import { useHarness } from '../support/use-harness.js';
import {
  type Account,
  beginSignIn,
  CLIENT_ID,
  callback,
  cookieOf,
  ScriptedBrowser,
  signIn,
  startProvider,
  type TestProvider,
} from './support.js';

/** Never contacted: the scripted browser stops at the callback and hands it to the app itself. */
const BASE = 'http://127.0.0.1:9';
const REDIRECT = `${BASE}/dashboard/login/oidc/callback`;
const ACCOUNTS: Record<string, Account> = {
  alice: { password: 'alice-pw', email: 'alice@example.test', name: 'Alice Admin', groups: ['shelfmark-admins'] },
  sam: { password: 'sam-pw', email: 'sam@example.test', name: 'Sam Support', groups: ['support', 'staff'] },
  nora: { password: 'nora-pw', email: 'nora@example.test', name: 'Nora Nobody', groups: ['staff'] },
  fay: { password: 'fay-pw', email: 'Fay@Example.test', name: 'Fay First' },
};

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({
    redirectUri: REDIRECT,
    postLogoutRedirectUri: `${BASE}/dashboard`,
    accounts: ACCOUNTS,
  });
}, 30_000);
afterAll(async () => provider?.stop());

const oidcConfig = (): Partial<Config> => ({
  oidcIssuer: provider.issuer,
  oidcClientId: CLIENT_ID,
  oidcClientSecret: 'test-client-secret-at-the-provider',
  oidcScopes: 'openid email profile groups',
  oidcRedirectUri: REDIRECT,
  oidcRoleClaim: 'groups',
  oidcRoleMap: [
    { value: 'shelfmark-admins', role: 'admin' },
    { value: 'support', role: 'support' },
  ],
  operatorAdmins: ['fay@example.test'],
});

describeEachEngine('operator sign-in through the OpenID provider', (engine) => {
  const h = useHarness(engine, { create: (e) => createHarness(e, oidcConfig()) });
  beforeEach(() => provider.setAccounts(ACCOUNTS));
  const sessionCount = async () =>
    Number(
      (
        await h.database.db.kysely
          .selectFrom('web_sessions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const consoleAs = (session: string | undefined) => ({ cookie: `shelfmark_console=${session}` });
  const refusedWithoutSession = async (
    reply: { statusCode: number; body: string; headers: Record<string, unknown> },
    status: number,
    why: RegExp,
  ) => {
    expect(reply.statusCode).toBe(status);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.body).toContain('<h1>Sign-in refused</h1>');
    expect(reply.body).toMatch(why);
    expect(String(reply.headers['set-cookie'] ?? '')).not.toContain('shelfmark_console=');
    expect(await sessionCount()).toBe(0);
  };

  it('GET /dashboard/login/oidc redirects to the provider with state, nonce and a PKCE challenge', async () => {
    const { reply, authorizeUrl } = await beginSignIn(h.app);
    expect(reply.statusCode).toBe(302);
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${provider.issuer}/auth`);
    const params = Object.fromEntries(authorizeUrl.searchParams);
    expect(params).toMatchObject({
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid email profile groups',
      code_challenge_method: 'S256',
    });
    expect(params.state).toMatch(/^[\w-]{43}$/);
    expect(params.nonce).toMatch(/^[\w-]{43}$/);
    expect(params.code_challenge).toMatch(/^[\w-]{43}$/);
    // The sign-in cookie comes back with the provider's (cross-site) redirect: Lax, HttpOnly, its path only.
    expect(String(reply.headers['set-cookie'])).toMatch(
      /^shelfmark_oidc=[\w-]{43}; Max-Age=600; Path=\/dashboard\/login\/oidc; HttpOnly; SameSite=Lax$/,
    );
    const pending = await h.database.db.kysely.selectFrom('oidc_sign_ins').selectAll().execute();
    expect(pending.map((row) => [row.state, row.nonce])).toEqual([[params.state, params.nonce]]);
  });

  it('the callback opens the console session of the operator, who then acts with their role', async () => {
    const { reply, session } = await signIn(h.app, 'alice', 'alice-pw', REDIRECT);
    expect(reply.statusCode).toBe(302);
    expect(reply.headers.location).toBe('/dashboard');
    expect(String(reply.headers['set-cookie'])).toMatch(
      /shelfmark_console=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict/,
    );
    const state = await h.app.inject({ method: 'GET', url: '/dashboard/api/session', headers: consoleAs(session) });
    const body = state.json();
    expect(body).toEqual({
      signedIn: true,
      csrfToken: expect.stringMatching(/^[\w-]{43}$/),
      idleTimeoutSeconds: 1800,
      role: 'admin',
      operator: { sub: 'alice', email: 'alice@example.test', name: 'Alice Admin', role: 'admin' },
    });
    // The pending sign-in was used up; the operator is on record.
    expect(await h.database.db.kysely.selectFrom('oidc_sign_ins').selectAll().execute()).toEqual([]);
    const operators = await h.anonymous().get('/api/admin/v1/operators', { headers: consoleAs(session) });
    expect(operators.statusCode).toBe(200);
    expect(operators.json()).toEqual({
      data: [
        {
          sub: 'alice',
          issuer: provider.issuer,
          email: 'alice@example.test',
          name: 'Alice Admin',
          role: 'admin',
          status: 'active',
          firstSignInAt: '2026-09-01T08:00:00.000Z',
          lastSignInAt: '2026-09-01T08:00:00.000Z',
          disabledAt: null,
        },
      ],
    });
    // A state change needs the session's CSRF token, as with the admin-token session.
    const noCsrf = await h.anonymous().post('/api/admin/v1/schools', { name: 'X' }, { headers: consoleAs(session) });
    expect(noCsrf.json()).toMatchObject({ status: 403, code: 'csrf-rejected' });
    const audit = await h.database.db.kysely
      .selectFrom('audit_records')
      .select(['action', 'actor_type', 'actor_id', 'actor_name', 'role', 'target_id', 'changes'])
      .where('action', 'like', 'operator.%')
      .execute();
    expect(audit).toEqual([
      {
        action: 'operator.signed-in',
        actor_type: 'operator',
        actor_id: 'alice',
        actor_name: 'alice@example.test',
        role: 'admin',
        target_id: 'alice',
        changes: JSON.stringify({
          email: { before: null, after: 'alice@example.test' },
          name: { before: null, after: 'Alice Admin' },
          role: { before: null, after: 'admin' },
        }),
      },
    ]);
  });

  it('a callback whose state is not this browser’s is refused, and opens no session', async () => {
    const { authorizeUrl, cookie } = await beginSignIn(h.app);
    const back = await new ScriptedBrowser().authorize(authorizeUrl.toString(), 'alice', 'alice-pw', REDIRECT);
    back.searchParams.set('state', 'forged-state-value');
    await refusedWithoutSession(await callback(h.app, back, cookie), 400, /state does not match/);
    // The sign-in was spent by the refusal: the genuine callback is refused too.
    back.searchParams.set('state', String(authorizeUrl.searchParams.get('state')));
    await refusedWithoutSession(await callback(h.app, back, cookie), 400, /no sign-in in progress/);
  });

  it('a replayed code is refused: without the sign-in cookie, and by the provider under a new sign-in', async () => {
    const first = await signIn(h.app, 'alice', 'alice-pw', REDIRECT);
    expect(first.reply.statusCode).toBe(302);
    await h.database.db.kysely.deleteFrom('web_sessions').execute();
    // The same callback again: its sign-in is used up.
    await refusedWithoutSession(await callback(h.app, first.callbackUrl, undefined), 400, /no sign-in in progress/);
    // The code under a fresh sign-in's state and cookie: the provider refuses a code used once.
    const { authorizeUrl, cookie } = await beginSignIn(h.app);
    const replay = new URL(first.callbackUrl);
    replay.searchParams.set('state', String(authorizeUrl.searchParams.get('state')));
    await refusedWithoutSession(await callback(h.app, replay, cookie), 400, /already used \(a replayed callback\)/);
  });

  it('a sign-in opened on another host name starts over on the one the provider returns to', async () => {
    const start = await h.app.inject({ method: 'GET', url: '/dashboard/login/oidc', headers: { host: 'localhost:9' } });
    expect(start.statusCode).toBe(302);
    expect(start.headers.location).toBe(`${BASE}/dashboard/login/oidc`);
    expect(start.headers['set-cookie']).toBeUndefined();
    expect(await h.database.db.kysely.selectFrom('oidc_sign_ins').selectAll().execute()).toEqual([]);
    // There, it goes to the provider with its cookie.
    const { reply } = await beginSignIn(h.app);
    expect(String(reply.headers.location)).toMatch(new RegExp(`^${provider.issuer}/auth\\?`));
  });

  it('a callback without its sign-in cookie names the address the sign-in must start at', async () => {
    const { authorizeUrl } = await beginSignIn(h.app);
    const back = new URL(REDIRECT);
    back.searchParams.set('code', 'x');
    back.searchParams.set('state', String(authorizeUrl.searchParams.get('state')));
    await refusedWithoutSession(
      await callback(h.app, back, undefined),
      400,
      /This browser has no sign-in in progress at http:\/\/127\.0\.0\.1:9: it expired, was already completed, or was started on another address\. Open the console at http:\/\/127\.0\.0\.1:9 and start again\./,
    );
  });

  it('an ID token with another nonce is refused', async () => {
    const { authorizeUrl, cookie } = await beginSignIn(h.app);
    // The provider is asked for another nonce than the one this sign-in keeps (an injected request).
    authorizeUrl.searchParams.set('nonce', 'a-nonce-of-another-sign-in');
    const back = await new ScriptedBrowser().authorize(authorizeUrl.toString(), 'alice', 'alice-pw', REDIRECT);
    await refusedWithoutSession(await callback(h.app, back, cookie), 400, /nonce does not match/);
  });

  it('an answer from an unknown issuer is refused', async () => {
    const { authorizeUrl, cookie } = await beginSignIn(h.app);
    const back = await new ScriptedBrowser().authorize(authorizeUrl.toString(), 'alice', 'alice-pw', REDIRECT);
    expect(back.searchParams.get('iss')).toBe(provider.issuer);
    back.searchParams.set('iss', 'https://idp.attacker.example');
    await refusedWithoutSession(
      await callback(h.app, back, cookie),
      400,
      /issuer other than the configured OIDC_ISSUER/,
    );
  });

  it('an identity no rule maps is refused; OPERATOR_ADMINS names admins without a role claim', async () => {
    const nora = await signIn(h.app, 'nora', 'nora-pw', REDIRECT);
    await refusedWithoutSession(nora.reply, 403, /no Shelfmark role: the claim groups carries \[&quot;staff&quot;\]/);
    expect(await h.database.db.kysely.selectFrom('operators').selectAll().execute()).toEqual([]);
    const fay = await signIn(h.app, 'fay', 'fay-pw', REDIRECT);
    expect(fay.reply.statusCode).toBe(302);
    const state = await h.app.inject({ method: 'GET', url: '/dashboard/api/session', headers: consoleAs(fay.session) });
    expect(state.json().operator).toEqual({ sub: 'fay', email: 'Fay@Example.test', name: 'Fay First', role: 'admin' });
  });

  it('a role change at the provider takes effect at the next sign-in', async () => {
    const before = await signIn(h.app, 'sam', 'sam-pw', REDIRECT);
    const role = async (session: string | undefined) =>
      (await h.app.inject({ method: 'GET', url: '/dashboard/api/session', headers: consoleAs(session) })).json().role;
    expect(await role(before.session)).toBe('support');
    const create = () => h.anonymous().get('/api/admin/v1/operators', { headers: consoleAs(before.session) });
    expect((await create()).json()).toMatchObject({ status: 403, code: 'forbidden', role: 'admin' });

    provider.setAccounts({ ...ACCOUNTS, sam: { ...ACCOUNTS.sam, password: 'sam-pw', groups: ['shelfmark-admins'] } });
    h.clock.advance(60_000);
    const after = await signIn(h.app, 'sam', 'sam-pw', REDIRECT);
    expect(await role(after.session)).toBe('admin');
    // The session opened before the change keeps the role it was opened with.
    expect(await role(before.session)).toBe('support');
    const operators = await h.anonymous().get('/api/admin/v1/operators', { headers: consoleAs(after.session) });
    expect(operators.json().data).toMatchObject([
      {
        sub: 'sam',
        role: 'admin',
        firstSignInAt: '2026-09-01T08:00:00.000Z',
        lastSignInAt: '2026-09-01T08:01:00.000Z',
      },
    ]);
    const changes = await h.database.db.kysely
      .selectFrom('audit_records')
      .select(['action', 'changes'])
      .where('action', '=', 'operator.role.changed')
      .execute();
    expect(changes).toEqual([
      { action: 'operator.role.changed', changes: JSON.stringify({ role: { before: 'support', after: 'admin' } }) },
    ]);
  });

  it('disabling an operator ends their sessions at once on every node, and refuses their next sign-in', async () => {
    const admin = await signIn(h.app, 'alice', 'alice-pw', REDIRECT);
    const sam1 = await signIn(h.app, 'sam', 'sam-pw', REDIRECT);
    const sam2 = await signIn(h.app, 'sam', 'sam-pw', REDIRECT);
    // A second node: its own services over the same database.
    const { createServices } = await import('../../src/main/services.js');
    const { buildApp } = await import('../../src/main/app.js');
    const deps = { config: h.config, db: h.database.db, clock: h.clock };
    const other = await buildApp({ ...deps, services: await createServices(deps) }, { logger: false });
    try {
      const overview = (app: typeof h.app, session: string | undefined) =>
        app.inject({ method: 'GET', url: '/api/admin/v1/overview', headers: consoleAs(session) });
      expect((await overview(other, sam1.session)).statusCode).toBe(200);
      const csrf = (
        await h.app.inject({ method: 'GET', url: '/dashboard/api/session', headers: consoleAs(admin.session) })
      ).json().csrfToken;
      const self = await h.anonymous().post('/api/admin/v1/operators/alice/disable', undefined, {
        headers: { ...consoleAs(admin.session), 'x-csrf-token': csrf },
      });
      expect(self.json()).toMatchObject({
        status: 409,
        code: 'conflict',
        detail: 'you cannot disable yourself; another admin can',
      });
      const disabled = await h.anonymous().post('/api/admin/v1/operators/sam/disable', undefined, {
        headers: { ...consoleAs(admin.session), 'x-csrf-token': csrf },
      });
      expect(disabled.statusCode).toBe(200);
      expect(disabled.json().data).toMatchObject([
        { sub: 'sam', status: 'disabled', disabledAt: '2026-09-01T08:00:00.000Z' },
      ]);
      for (const app of [h.app, other])
        for (const session of [sam1.session, sam2.session])
          expect((await overview(app, session)).json()).toMatchObject({ status: 401, code: 'unauthenticated' });
      expect((await overview(other, admin.session)).statusCode).toBe(200);
      const again = await signIn(h.app, 'sam', 'sam-pw', REDIRECT);
      expect(again.reply.statusCode).toBe(403);
      expect(again.reply.body).toContain('This operator is disabled in Shelfmark');
      expect(again.session).toBeUndefined();
      const enabled = await h.anonymous().post('/api/admin/v1/operators/sam/enable', undefined, {
        headers: { ...consoleAs(admin.session), 'x-csrf-token': csrf },
      });
      expect(enabled.json().data).toMatchObject([{ sub: 'sam', status: 'active', disabledAt: null }]);
      expect((await signIn(h.app, 'sam', 'sam-pw', REDIRECT)).reply.statusCode).toBe(302);
      const records = await h.database.db.kysely
        .selectFrom('audit_records')
        .select(['action', 'actor_id', 'target_id', 'changes'])
        .where('action', 'in', ['operator.disabled', 'operator.enabled'])
        .orderBy('seq')
        .execute();
      expect(records).toEqual([
        {
          action: 'operator.disabled',
          actor_id: 'alice',
          target_id: 'sam',
          changes: JSON.stringify({ status: { before: 'active', after: 'disabled' } }),
        },
        {
          action: 'operator.enabled',
          actor_id: 'alice',
          target_id: 'sam',
          changes: JSON.stringify({ status: { before: 'disabled', after: 'active' } }),
        },
      ]);
    } finally {
      await other.close();
    }
  });

  it("signing out ends the session here and points the browser at the provider's logout", async () => {
    const browser = new ScriptedBrowser();
    const { session } = await signIn(h.app, 'alice', 'alice-pw', REDIRECT, browser);
    const csrf = (
      await h.app.inject({ method: 'GET', url: '/dashboard/api/session', headers: consoleAs(session) })
    ).json().csrfToken;
    const out = await h.app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-out',
      headers: { ...consoleAs(session), 'x-csrf-token': csrf },
    });
    expect(out.statusCode).toBe(200);
    const logout = new URL(out.json().endSessionUrl);
    expect(`${logout.origin}${logout.pathname}`).toBe(`${provider.issuer}/session/end`);
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE}/dashboard`);
    expect(logout.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(logout.searchParams.get('id_token_hint')?.split('.')).toHaveLength(3);
    expect(await sessionCount()).toBe(0);
    // The provider takes the hint: its logout page asks to confirm, and then sends the browser back.
    const page = await browser.fetch(logout.toString());
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Sign out of the test provider?');
    const confirmed = await browser.submitForm(logout.toString(), text, { logout: 'yes' });
    expect([confirmed.status, confirmed.headers.get('location')]).toEqual([303, `${BASE}/dashboard`]);
    // The provider's session is over: the next sign-in in this browser asks for the password again.
    const next = await beginSignIn(h.app);
    const login = await browser.fetch(next.authorizeUrl.toString());
    const atLogin = await browser.fetch(new URL(String(login.headers.get('location')), provider.issuer).toString());
    expect(await atLogin.text()).toContain('Test provider sign-in');
    // A session opened with the admin token has no provider session to end.
    const token = await h.app.inject({
      method: 'POST',
      url: '/dashboard/api/session',
      payload: { token: 'test-admin-token-0123456789' },
    });
    const tokenCookie = cookieOf(token, 'shelfmark_console');
    const tokenOut = await h.app.inject({
      method: 'POST',
      url: '/dashboard/api/sign-out',
      headers: { ...consoleAs(tokenCookie), 'x-csrf-token': token.json().csrfToken },
    });
    expect(tokenOut.statusCode).toBe(204);
  });
});

describeEachEngine('operator sign-in: default role and public client', (engine) => {
  const publicClient: { provider?: TestProvider } = {};
  beforeAll(async () => {
    publicClient.provider = await startProvider({
      redirectUri: REDIRECT,
      postLogoutRedirectUri: `${BASE}/dashboard`,
      accounts: ACCOUNTS,
      secret: false,
    });
  }, 30_000);
  afterAll(async () => publicClient.provider?.stop());

  it('OIDC_DEFAULT_ROLE=viewer admits an identity no rule maps, as a viewer', async () => {
    const h = await createHarness(engine, { ...oidcConfig(), oidcDefaultRole: 'viewer' });
    try {
      const nora = await signIn(h.app, 'nora', 'nora-pw', REDIRECT);
      expect(nora.reply.statusCode).toBe(302);
      const state = await h.app.inject({
        method: 'GET',
        url: '/dashboard/api/session',
        headers: { cookie: `shelfmark_console=${nora.session}` },
      });
      expect(state.json().operator).toEqual({
        sub: 'nora',
        email: 'nora@example.test',
        name: 'Nora Nobody',
        role: 'viewer',
      });
    } finally {
      await h.close();
    }
  });

  it('a public client (no OIDC_CLIENT_SECRET) signs in with PKCE alone', async () => {
    const issuer = String(publicClient.provider?.issuer);
    const h = await createHarness(engine, { ...oidcConfig(), oidcIssuer: issuer, oidcClientSecret: undefined });
    try {
      const alice = await signIn(h.app, 'alice', 'alice-pw', REDIRECT);
      expect(alice.reply.statusCode).toBe(302);
      const operators = await h.database.db.kysely.selectFrom('operators').select(['issuer', 'sub', 'role']).execute();
      expect(operators).toEqual([{ issuer, sub: 'alice', role: 'admin' }]);
    } finally {
      await h.close();
    }
  });
});

describeEachEngine('operator sign-in without a provider', (engine) => {
  const h = useHarness(engine);

  it('offers the admin-token form only, and the provider endpoints say they are not configured', async () => {
    expect((await h.anonymous().get('/dashboard/api/session')).json()).toEqual({ signedIn: false, oidc: null });
    const start = await h.anonymous().get('/dashboard/login/oidc');
    expect(start.statusCode).toBe(400);
    expect(start.headers['set-cookie']).toBeUndefined();
    expect(start.body).toContain(
      'Sign-in through an identity provider is not configured (OIDC_ISSUER); use the admin token.',
    );
    const back = await h.anonymous().get('/dashboard/login/oidc/callback?code=x&state=y');
    expect(back.statusCode).toBe(400);
    expect(await h.database.db.kysely.selectFrom('web_sessions').selectAll().execute()).toEqual([]);
    // The admin-token session is an admin's, without an operator.
    const token = await h.anonymous().post('/dashboard/api/session', { token: 'test-admin-token-0123456789' });
    const state = await h.anonymous().get('/dashboard/api/session', {
      headers: { cookie: `shelfmark_console=${cookieOf(token, 'shelfmark_console')}` },
    });
    expect(state.json()).toEqual({
      signedIn: true,
      csrfToken: token.json().csrfToken,
      idleTimeoutSeconds: 1800,
      role: 'admin',
      operator: null,
    });
  });
});

describeEachEngine('the identity provider by name', (engine) => {
  const h = useHarness(engine, {
    create: (e) => createHarness(e, { ...oidcConfig(), oidcDisplayName: 'Entra ID' }),
  });

  it('OIDC_DISPLAY_NAME names it on the console sign-in and on the home page, which offers the sign-in', async () => {
    expect((await h.anonymous().get('/dashboard/api/session')).json()).toEqual({
      signedIn: false,
      oidc: { issuer: provider.issuer, name: 'Entra ID', url: '/dashboard/login/oidc' },
    });
    const home = await h.anonymous().get('/', { headers: { accept: 'text/html' } });
    expect(home.body).toContain(
      '<li><a href="/dashboard/login/oidc">Sign in with Entra ID</a> <span class="muted">the operator console, through your organisation&#39;s sign-in</span></li>',
    );
    const dutch = await h.anonymous().get('/', { headers: { accept: 'text/html', 'accept-language': 'nl' } });
    expect(dutch.body).toContain('<a href="/dashboard/login/oidc">Aanmelden met Entra ID</a>');
  });
});

describeEachEngine('the home page without a provider', (engine) => {
  const h = useHarness(engine);

  it('offers no provider sign-in', async () => {
    const home = await h.anonymous().get('/', { headers: { accept: 'text/html' } });
    expect(home.statusCode).toBe(200);
    expect(home.body).not.toContain('/dashboard/login/oidc');
  });
});
