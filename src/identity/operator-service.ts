/**
 * Operators by name: the sign-in through the OpenID Connect provider (begin → provider → complete),
 * the operators who signed in, and disabling one. A refused sign-in throws SignInRefused, which the
 * route renders as a page saying why; nothing is stored for it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Initiator } from '../audit/initiator.js';
import { changesBetween } from '../audit/recorder.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import { Problem } from '../problems/catalogue.js';
import type { Role } from '../vocabulary/actor.js';
import type { ApiTokens } from './api-tokens.js';
import type { OidcClient } from './oidc-client.js';
import type { OperatorView } from './operator-schemas.js';
import { type OperatorRow, OperatorStore } from './operator-store.js';
import { explainProviderError, type RefusalWords } from './refusals.js';
import { type RoleSettings, roleFromClaims } from './role-from-claims.js';
import { WebSessionStore } from './session-store.js';
import type { SessionOperator, WebSession, WebSessions } from './sessions.js';

/** How long a sign-in may stay at the provider (login, consent) before its callback is refused. */
export const SIGN_IN_TTL_MS = 10 * 60 * 1000;

/** A sign-in refused: the status of the page and, in words, why. */
export class SignInRefused extends Error {
  constructor(
    readonly status: 400 | 403 | 502,
    readonly reason: string,
    readonly words: RefusalWords = { key: 'refusal.check-failed', params: { detail: reason } },
  ) {
    super(reason);
    this.name = 'SignInRefused';
  }
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function view(row: OperatorRow): OperatorView {
  return {
    sub: row.sub,
    issuer: row.issuer,
    email: row.email,
    name: row.name,
    role: row.role as Role,
    status: row.disabled_at === null ? 'active' : 'disabled',
    firstSignInAt: isoTime(Number(row.first_sign_in_at)),
    lastSignInAt: isoTime(Number(row.last_sign_in_at)),
    disabledAt: row.disabled_at === null ? null : isoTime(Number(row.disabled_at)),
  };
}

export class OperatorService {
  constructor(
    private readonly store: OperatorStore,
    private readonly sessions: WebSessions,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly roles: RoleSettings,
    /** Undefined when OIDC_ISSUER is not set: the console offers the admin-token form only. */
    readonly oidc: OidcClient | undefined,
    /** Named tokens for automation, each with a role. */
    readonly apiTokens: ApiTokens,
  ) {}

  /** Starts a sign-in: the provider's URL to send the browser to, and the value of its sign-in cookie. */
  async beginSignIn(): Promise<{ url: string; cookieValue: string }> {
    const oidc = this.requireOidc();
    const { url, pending } = await oidc.begin().catch((error: unknown) => {
      throw new SignInRefused(502, `the identity provider ${oidc.issuer} cannot be reached: ${String(error)}`, {
        key: 'refusal.unreachable',
        params: { issuer: oidc.issuer, detail: String(error) },
      });
    });
    const cookieValue = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.store.pruneSignIns(now);
    await this.store.insertSignIn({
      id_hash: sha256(cookieValue),
      state: pending.state,
      nonce: pending.nonce,
      code_verifier: pending.codeVerifier,
      expires_at: now + SIGN_IN_TTL_MS,
    });
    return { url: url.toString(), cookieValue };
  }

  /** Finishes a sign-in from the provider's callback: a console session for the operator, or SignInRefused. */
  async completeSignIn(
    cookieValue: string | undefined,
    query: string,
    origin: Initiator['origin'],
  ): Promise<{ sessionId: string; session: WebSession }> {
    const oidc = this.requireOidc();
    const pending =
      cookieValue === undefined ? undefined : await this.store.consumeSignIn(sha256(cookieValue), this.clock.now());
    if (pending === undefined)
      throw new SignInRefused(
        400,
        `this browser has no sign-in in progress at ${oidc.origin}: it expired, was already completed, or was started on another address. Open the console at ${oidc.origin} and start again.`,
        { key: 'refusal.no-sign-in', params: { origin: oidc.origin } },
      );
    const identity = await oidc
      .finish(query, { state: pending.state, nonce: pending.nonce, codeVerifier: pending.code_verifier })
      .catch((error: unknown) => {
        throw new SignInRefused(...explainProviderError(error));
      });
    const { claims } = identity;
    const decision = roleFromClaims(claims, this.roles);
    if (decision.role === null) {
      const { claim } = decision;
      throw new SignInRefused(
        403,
        decision.because,
        claim === undefined
          ? { key: 'refusal.no-role-claim' }
          : { key: 'refusal.no-role', params: { claim: claim.name, values: claim.values } },
      );
    }
    const operator: SessionOperator = {
      issuer: claims.iss,
      sub: claims.sub,
      email: text(claims.email),
      name: text(claims.name) ?? text(claims.preferred_username),
      role: decision.role,
    };
    const known = await this.store.find(operator.issuer, operator.sub);
    if (known?.disabled_at != null)
      throw new SignInRefused(403, 'this operator is disabled in Shelfmark; an admin can enable them again.', {
        key: 'refusal.disabled',
      });
    const by: Initiator = {
      actor: { type: 'operator', id: operator.sub, name: operator.email ?? operator.name, role: operator.role },
      origin,
    };
    await this.work.run(by, async ({ trx, record }) => {
      await new OperatorStore(trx).recordSignIn(operator, this.clock.now());
      const before = known === undefined ? null : { email: known.email, name: known.name, role: known.role };
      const after = { email: operator.email, name: operator.name, role: operator.role };
      record('operator.signed-in', operator.sub, changesBetween(before, after));
      if (known !== undefined && known.role !== operator.role)
        record('operator.role.changed', operator.sub, {
          role: { before: known.role, after: operator.role },
        });
    });
    return this.sessions.startConsole(operator, identity.idToken);
  }

  async list(): Promise<OperatorView[]> {
    return (await this.store.list()).map(view);
  }

  /** Disables an operator: no sign-in from now on, and every session of theirs ends at once, on every node. */
  async disable(sub: string, by: Initiator): Promise<OperatorView[]> {
    if (by.actor.type === 'operator' && by.actor.id === sub)
      throw new Problem('conflict', 'you cannot disable yourself; another admin can');
    return this.setStatus(sub, by, 'disabled');
  }

  enable(sub: string, by: Initiator): Promise<OperatorView[]> {
    return this.setStatus(sub, by, 'active');
  }

  /** The provider's logout URL for an ended session, when there is a provider and it has one. */
  logoutUrl(idToken: string | null, postLogoutRedirectUri: string): Promise<string | undefined> {
    return this.oidc === undefined ? Promise.resolve(undefined) : this.oidc.logoutUrl(idToken, postLogoutRedirectUri);
  }

  private async setStatus(sub: string, by: Initiator, status: 'active' | 'disabled'): Promise<OperatorView[]> {
    const rows = (await this.store.list()).filter((row) => row.sub === sub);
    if (rows.length === 0) throw new Problem('not-found', `no operator with sub ${sub} has signed in`);
    const now = this.clock.now();
    await this.work.run(by, async ({ trx, record }) => {
      for (const row of rows) {
        const was = row.disabled_at === null ? 'active' : 'disabled';
        if (was === status) continue;
        await new OperatorStore(trx).setDisabled(row.issuer, row.sub, status === 'disabled' ? now : null);
        // Sessions are read from the database on every request, on every node: deleting them ends them.
        if (status === 'disabled') await new WebSessionStore(trx).deleteOperatorSessions(row.issuer, row.sub);
        record(status === 'disabled' ? 'operator.disabled' : 'operator.enabled', row.sub, {
          status: { before: was, after: status },
        });
      }
    });
    return (await this.store.list()).filter((row) => row.sub === sub).map(view);
  }

  private requireOidc(): OidcClient {
    if (this.oidc === undefined)
      throw new SignInRefused(
        400,
        'sign-in through an identity provider is not configured (OIDC_ISSUER); use the admin token.',
        { key: 'refusal.not-configured' },
      );
    return this.oidc;
  }
}
