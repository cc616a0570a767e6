/**
 * The operator's guard: `Authorization: Bearer <ADMIN_TOKEN>`. The token is configured or generated
 * on first start; either way only its keyed hash is held and it is compared in constant time.
 */
import type { onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { parseBearer } from '../auth/basic.js';
import type { SecretHasher } from '../auth/secret-hash.js';
import type { Guard } from '../http/route-behaviour.js';
import { Problem } from '../problems/catalogue.js';
import { ADMIN_TOKEN_ACTOR, actorOf, attachActor, type Role, roleAtLeast } from '../vocabulary/actor.js';
import { API_TOKEN_PREFIX, type ApiTokens } from './api-tokens.js';
import { admitResolved } from './session-guard.js';
import { CONSOLE_COOKIE, type WebSessions } from './sessions.js';

/** A stored (generated) token hash is re-read at most this often, so a reset elsewhere applies within it. */
const STORED_HASH_TTL_MS = 5000;

export class AdminAuth {
  private loadedAt: number;

  constructor(
    private readonly hasher: SecretHasher,
    private tokenHash: string,
    /** Reads the stored hash again; absent when ADMIN_TOKEN comes from the environment. */
    private readonly reload?: () => Promise<string | undefined>,
    private readonly now: () => number = Date.now,
  ) {
    this.loadedAt = now();
  }

  replaceTokenHash(hash: string): void {
    this.tokenHash = hash;
  }

  verify(token: string | undefined): boolean {
    return token !== undefined && this.hasher.matches(token, this.tokenHash);
  }

  /** Verifies against the current hash, re-reading a stored one when it is older than STORED_HASH_TTL_MS. */
  async verifyFresh(token: string | undefined): Promise<boolean> {
    if (this.reload !== undefined && this.now() - this.loadedAt >= STORED_HASH_TTL_MS) {
      this.loadedAt = this.now();
      this.tokenHash = (await this.reload()) ?? this.tokenHash;
    }
    return this.verify(token);
  }

  readonly guard: preHandlerAsyncHookHandler = async (request) => {
    const header = request.headers.authorization;
    if (!(await this.verifyFresh(parseBearer(header)))) {
      throw new Problem(
        'unauthenticated',
        header === undefined ? 'send Authorization: Bearer <ADMIN_TOKEN>' : 'the admin token is wrong',
        {},
        { 'www-authenticate': 'Bearer realm="shelfmark-admin"' },
      );
    }
  };
}

/**
 * The admin API's guard: Bearer <ADMIN_TOKEN> as before, or the operator console's session cookie
 * (with CSRF on state changes). Without either, the bearer guard's 401 answers, unchanged.
 */
export const adminOrConsole =
  ({
    webSessions,
    adminAuth,
    apiTokens,
  }: {
    webSessions: WebSessions;
    adminAuth: AdminAuth;
    /** Named API tokens (automation), each acting with its own role. */
    apiTokens?: Pick<ApiTokens, 'actorOf'>;
  }): onRequestAsyncHookHandler =>
  async (request, reply) => {
    if (request.headers.authorization === undefined && request.cookies[CONSOLE_COOKIE] !== undefined) {
      // Resolved once: a live session is admitted as it is (resolving reads and may touch its row).
      const session = await webSessions.resolve(request.cookies[CONSOLE_COOKIE], 'console');
      if (session !== undefined) {
        admitResolved(request, session);
        // A session opened through the provider acts as its operator, with the role of their sign-in;
        // one opened with the admin token acts as the admin token.
        const { operator } = session;
        attachActor(
          request,
          operator === null
            ? ADMIN_TOKEN_ACTOR
            : { type: 'operator', id: operator.sub, name: operator.email ?? operator.name, role: operator.role },
        );
        return;
      }
    }
    const bearer = parseBearer(request.headers.authorization);
    if (apiTokens !== undefined && bearer?.startsWith(API_TOKEN_PREFIX)) {
      const actor = await apiTokens.actorOf(bearer);
      if (actor === undefined)
        throw new Problem(
          'unauthenticated',
          'the API token is unknown or revoked',
          {},
          {
            'www-authenticate': 'Bearer realm="shelfmark-admin"',
          },
        );
      attachActor(request, actor);
      return;
    }
    await adminAuth.guard.call(request.server, request, reply);
    attachActor(request, ADMIN_TOKEN_ACTOR);
  };

/**
 * The role check: one guard per role, each admitting the operator (token, API token or console
 * session) and then holding them to the least role the route declares.
 */
export function operatorGuards(admitOperator: onRequestAsyncHookHandler): (role: Role) => Guard {
  const guards = new Map<Role, Guard>();
  const guardFor = (role: Role): Guard => ({
    onRequest: async function guard(request, reply) {
      await admitOperator.call(this, request, reply);
      const actor = actorOf(request);
      if (!roleAtLeast(actor?.role ?? null, role))
        throw new Problem('forbidden', `this needs the ${role} role; you act as ${actor?.role ?? 'no role'}`, {
          role,
          yourRole: actor?.role ?? null,
        });
    },
  });
  return (role) => {
    let guard = guards.get(role);
    if (guard === undefined) {
      guard = guardFor(role);
      guards.set(role, guard);
    }
    return guard;
  };
}
