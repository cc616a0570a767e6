/**
 * A real OpenID provider for the operator sign-in tests, in a process of its own: `oidc-provider` on
 * 127.0.0.1 (a free port), with its own login page instead of the dev interactions (whose pages load
 * web fonts from the internet) and consent granted by script. Accounts and their claims are read from
 * a JSON file on every sign-in, so a test changes a role at the provider by rewriting the file.
 *
 * Environment: ACCOUNTS_FILE, CLIENT_ID, CLIENT_SECRET (empty: a public client), REDIRECT_URI,
 * POST_LOGOUT_REDIRECT_URI. Prints `listening <issuer>` once it serves.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';

/** The little of oidc-provider's API used here (the package ships no types; bench/oidc-provider.d.ts declares the module). */
interface Ctx {
  body: string;
  type: string;
}
interface Interaction {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId?: string };
}
interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  save(): Promise<string>;
}
interface TestProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: new (init: { accountId?: string; clientId: string }) => Grant;
}

interface Account {
  password: string;
  email?: string;
  name?: string;
  groups?: string[];
}

const env = (name: string): string => process.env[name] ?? '';
const accounts = (): Record<string, Account> => JSON.parse(readFileSync(env('ACCOUNTS_FILE'), 'utf8'));
const escapeText = (value: string): string => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function html(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeText(title)}</title></head><body><h1>${escapeText(title)}</h1>${body}</body></html>`;
}

const privateJwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const issuer = `http://127.0.0.1:${address.port}`;
  const secret = env('CLIENT_SECRET');
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: env('CLIENT_ID'),
        ...(secret === '' ? { token_endpoint_auth_method: 'none' } : { client_secret: secret }),
        redirect_uris: [env('REDIRECT_URI')],
        post_logout_redirect_uris: [env('POST_LOGOUT_REDIRECT_URI')],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...privateJwk, kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['shelfmark-test-provider-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    pkce: { required: () => true },
    interactions: { url: (_ctx: Ctx, interaction: Interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: Ctx, form: string) => {
          ctx.body = html(
            'Sign out of the test provider?',
            `${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>`,
          );
        },
        postLogoutSuccessSource: async (ctx: Ctx) => {
          ctx.body = html('Signed out of the test provider', '');
        },
      },
    },
    renderError: async (ctx: Ctx, out: { error?: unknown; error_description?: unknown }) => {
      ctx.type = 'html';
      ctx.body = html(
        'Provider error',
        `<p>${escapeText(String(out.error))}: ${escapeText(String(out.error_description ?? ''))}</p>`,
      );
    },
    findAccount: async (_ctx: Ctx, id: string) => {
      const account = accounts()[id];
      if (account === undefined) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          ...(account.email === undefined ? {} : { email: account.email, email_verified: true }),
          ...(account.name === undefined ? {} : { name: account.name }),
          ...(account.groups === undefined ? {} : { groups: account.groups }),
        }),
      };
    },
  }) as unknown as TestProvider;
  const callback = provider.callback();

  async function body(req: IncomingMessage): Promise<URLSearchParams> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return new URLSearchParams(text);
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
    const details = await provider.interactionDetails(req, res);
    if (action === 'login' && req.method === 'POST') {
      const form = await body(req);
      const login = form.get('login') ?? '';
      const account = accounts()[login];
      if (account === undefined || account.password !== form.get('password')) {
        res.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html('Wrong login or password', `<p><a href="/interaction/${escapeText(uid)}">Try again</a></p>`));
        return;
      }
      await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
      return;
    }
    if (details.prompt.name === 'login') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        html(
          'Test provider sign-in',
          `<form method="post" action="/interaction/${escapeText(uid)}/login">
<label>Login <input name="login" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in at the provider</button></form>`,
        ),
      );
      return;
    }
    // Consent by script: grant what the client asked for.
    const { session, params, prompt } = details;
    const grant = new provider.Grant({ accountId: session?.accountId, clientId: String(params.client_id) });
    const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  server.on('request', (req, res) => {
    // Browsers ask every origin for an icon; an answer keeps their consoles free of 404s.
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const match = /^\/interaction\/([^/?]+)(?:\/(login))?/.exec(req.url ?? '');
    if (match?.[1] === undefined) {
      callback(req, res);
      return;
    }
    interaction(req, res, match[1], match[2]).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  console.log(`listening ${issuer}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
