/**
 * The operator sign-in tests' world: a real OpenID provider in a process of its own
 * (provider-process.ts), and a scripted browser for the flows that need no pages: it follows the
 * provider's redirects with a cookie jar, fills the provider's login form, and stops at the callback
 * to Shelfmark, which the test then sends (changed or not) to the app.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../src/main/app.js';
import type { Reply } from '../support/requests.js';

export interface Account {
  password: string;
  email?: string;
  name?: string;
  groups?: string[];
}

export const CLIENT_ID = 'shelfmark-console';
export const CLIENT_SECRET = 'test-client-secret-at-the-provider';

export interface TestProvider {
  issuer: string;
  /** Rewrites the provider's accounts: the claims of the next sign-in. */
  setAccounts(accounts: Record<string, Account>): void;
  stop(): Promise<void>;
}

export async function startProvider(options: {
  redirectUri: string;
  postLogoutRedirectUri: string;
  accounts: Record<string, Account>;
  /** false: a public client (PKCE alone). */
  secret?: boolean;
}): Promise<TestProvider> {
  const dir = mkdtempSync(join(tmpdir(), 'shelfmark-provider-'));
  const accountsFile = join(dir, 'accounts.json');
  const setAccounts = (accounts: Record<string, Account>) => writeFileSync(accountsFile, JSON.stringify(accounts));
  setAccounts(options.accounts);
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'provider-process.ts')],
    {
      env: {
        PATH: process.env.PATH,
        ACCOUNTS_FILE: accountsFile,
        CLIENT_ID,
        CLIENT_SECRET: options.secret === false ? '' : CLIENT_SECRET,
        REDIRECT_URI: options.redirectUri,
        POST_LOGOUT_REDIRECT_URI: options.postLogoutRedirectUri,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the provider did not start within 20 s:\n${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`the provider exited (${String(code)}):\n${output}`)));
  });
  return {
    issuer,
    setAccounts,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A browser without pages: a cookie jar for the provider's origin and redirects followed by hand. */
export class ScriptedBrowser {
  private readonly jar = new Map<string, string>();

  private cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async fetch(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader(),
        ...(init.form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form).toString() }),
    });
    this.keep(response);
    return response;
  }

  /** Submits the first form of a page with its hidden inputs (and `extra`); answers the reply. */
  async submitForm(pageUrl: string, page: string, extra: Record<string, string> = {}): Promise<Response> {
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page);
    if (form?.[1] === undefined) throw new Error(`no form on the page: ${page}`);
    const fields: Record<string, string> = {};
    for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
      fields[input[1] ?? ''] = input[2] ?? '';
    return this.fetch(new URL(form[1], pageUrl).toString(), { method: 'POST', form: { ...fields, ...extra } });
  }

  /**
   * From the provider's authorization URL to the callback URL it sends the browser back with: signs
   * in with the login form when the provider asks. Returns the callback URL, or throws with the page
   * the provider answered instead.
   */
  async authorize(authorizeUrl: string, login: string, password: string, redirectUri: string): Promise<URL> {
    let url = authorizeUrl;
    for (let hop = 0; hop < 12; hop++) {
      const response = await this.fetch(url);
      const location = response.headers.get('location');
      if (location !== null) {
        const next = new URL(location, url);
        if (next.toString().startsWith(redirectUri)) return next;
        url = next.toString();
        continue;
      }
      const page = await response.text();
      const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
      if (response.status !== 200 || action === undefined)
        throw new Error(`the provider answered ${response.status}: ${page}`);
      const submitted = await this.fetch(new URL(action, url).toString(), {
        method: 'POST',
        form: { login, password },
      });
      const after = submitted.headers.get('location');
      if (after === null) throw new Error(`the provider refused the login: ${await submitted.text()}`);
      url = new URL(after, url).toString();
    }
    throw new Error('too many redirects at the provider');
  }
}

/** The cookie `name` a reply sets, if any. */
export function cookieOf(reply: Reply, name: string): string | undefined {
  const header = reply.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const line = lines.find((candidate) => candidate.startsWith(`${name}=`));
  const value = line?.slice(name.length + 1).split(';')[0];
  return value === undefined || value === '' ? undefined : value;
}

/** Starts a sign-in at the app: the provider URL it redirects to and the sign-in cookie it set. */
export async function beginSignIn(app: App): Promise<{ reply: Reply; authorizeUrl: URL; cookie: string }> {
  let reply = await app.inject({ method: 'GET', url: '/dashboard/login/oidc' });
  // Sent first to the host the provider returns to, as a browser would follow it.
  const location = String(reply.headers.location ?? '');
  if (reply.statusCode === 302 && location.endsWith('/dashboard/login/oidc'))
    reply = await app.inject({
      method: 'GET',
      url: '/dashboard/login/oidc',
      headers: { host: new URL(location).host },
    });
  const cookie = cookieOf(reply, 'shelfmark_oidc');
  if (reply.statusCode !== 302 || cookie === undefined) throw new Error(`sign-in did not start: ${reply.body}`);
  return { reply, authorizeUrl: new URL(String(reply.headers.location)), cookie };
}

/** Sends the provider's callback to the app with the browser's sign-in cookie (if any). */
export function callback(app: App, callbackUrl: URL, cookie: string | undefined): Promise<Reply> {
  return app.inject({
    method: 'GET',
    url: `${callbackUrl.pathname}${callbackUrl.search}`,
    headers: cookie === undefined ? {} : { cookie: `shelfmark_oidc=${cookie}` },
  });
}

/** A whole sign-in: returns the callback's reply and the console cookie it set. */
export async function signIn(
  app: App,
  login: string,
  password: string,
  redirectUri: string,
  browser = new ScriptedBrowser(),
): Promise<{ reply: Reply; session: string | undefined; callbackUrl: URL }> {
  const { authorizeUrl, cookie } = await beginSignIn(app);
  const callbackUrl = await browser.authorize(authorizeUrl.toString(), login, password, redirectUri);
  const reply = await callback(app, callbackUrl, cookie);
  return { reply, session: cookieOf(reply, 'shelfmark_console'), callbackUrl };
}
