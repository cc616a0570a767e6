/**
 * Browser sessions for the partner portal and the operator console, and the one-time links that
 * start a portal session. Secrets (link tokens, session ids) are random, shown once and stored only
 * as SHA-256 hashes: they carry 256 bits, so an unkeyed fast hash is enough and lookups stay exact.
 * Every session carries its own CSRF token, which state-changing requests echo in a header.
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Initiator } from '../audit/initiator.js';
import type { ClientService } from '../auth/client-service.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import type { Config } from '../config.js';
import { Problem } from '../problems/catalogue.js';
import { ROLES, type Role } from '../vocabulary/actor.js';
import { WebSessionStore } from './session-store.js';

/** The rule: a sign-in link is good for 15 minutes and one use. */
export const PORTAL_LINK_TTL_MS = 15 * 60 * 1000;
export const PORTAL_COOKIE = 'shelfmark_portal';
export const CONSOLE_COOKIE = 'shelfmark_console';
export const CSRF_HEADER = 'x-csrf-token';

export type SessionKind = 'portal' | 'console';

/** The person behind a console session opened through the OpenID Connect provider. */
export interface SessionOperator {
  issuer: string;
  sub: string;
  email: string | null;
  name: string | null;
  role: Role;
}

export interface WebSession {
  kind: SessionKind;
  /** The client's internal id for a portal session; null for the operator console. */
  clientRef: string | null;
  csrfToken: string;
  /** Console sessions opened through the provider; null for the admin token's and portal sessions. */
  operator: SessionOperator | null;
}

const isRole = (value: string | null | undefined): value is Role => (ROLES as readonly string[]).includes(value ?? '');

export interface PortalLink {
  clientId: string;
  /** Relative to the site: /portal/sign-in#<token> (the fragment never reaches a server log). */
  path: string;
  /** Absolute when PUBLIC_BASE_URL is set. */
  url: string;
  expiresAt: string;
}

const random = (): string => randomBytes(32).toString('base64url');
const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

export class WebSessions {
  constructor(
    private readonly store: WebSessionStore,
    private readonly clients: ClientService,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'publicBaseUrl' | 'sessionIdleSeconds'>,
    private readonly work: UnitOfWork,
  ) {}

  /** A one-time portal sign-in link for one (active) client. */
  async createPortalLink(clientRef: string, by: Initiator, baseUrl?: string): Promise<PortalLink> {
    const client = await this.clients.get(clientRef);
    if (client.status !== 'active')
      throw new Problem('conflict', 'the client is revoked; a revoked client cannot sign in');
    const token = random();
    const now = this.clock.now();
    const expiresAt = now + PORTAL_LINK_TTL_MS;
    await this.work.run(by, async ({ trx, record }) => {
      await new WebSessionStore(trx).insertLink({
        token_hash: sha256(token),
        client_ref: clientRef,
        created_at: now,
        expires_at: expiresAt,
      });
      record('portal.link.created', clientRef, {
        expiresAt: { before: null, after: isoTime(expiresAt) },
      });
    });
    await this.store.prune(now - this.config.sessionIdleSeconds * 1000, now);
    const path = `/portal/sign-in#${token}`;
    const base = (baseUrl ?? this.config.publicBaseUrl ?? '').replace(/\/$/, '');
    return { clientId: client.clientId, path, url: `${base}${path}`, expiresAt: isoTime(expiresAt) };
  }

  /** Redeems a link: a new portal session for its client, or 401 when the link is unknown, used or expired. */
  async redeemPortalLink(token: string): Promise<{ sessionId: string; session: WebSession }> {
    const now = this.clock.now();
    const clientRef = await this.store.consumeLink(sha256(token), now);
    if (clientRef === undefined)
      throw new Problem(
        'unauthenticated',
        'this sign-in link is invalid, already used or expired; ask the operator for a new one',
      );
    const client = await this.clients.get(clientRef);
    if (client.status !== 'active') throw new Problem('unauthenticated', 'the client is revoked');
    return this.start('portal', clientRef);
  }

  /**
   * A console session: for the admin token (checked by the caller) without an operator, or for an
   * operator the provider identified (with the ID token its logout takes as a hint).
   */
  startConsole(
    operator: SessionOperator | null = null,
    idToken: string | null = null,
  ): Promise<{ sessionId: string; session: WebSession }> {
    return this.start('console', null, operator, idToken);
  }

  /**
   * The live session behind a cookie value, refreshing its idle timer; undefined when unknown, idle
   * for longer than SESSION_IDLE_SECONDS, of the other kind, or (portal) its client was revoked.
   */
  async resolve(sessionId: string | undefined, kind: SessionKind): Promise<WebSession | undefined> {
    if (sessionId === undefined || sessionId === '') return undefined;
    const idHash = sha256(sessionId);
    const row = await this.store.findSession(idHash);
    if (row === undefined || row.kind !== kind) return undefined;
    const now = this.clock.now();
    if (now - Number(row.last_seen_at) > this.config.sessionIdleSeconds * 1000) {
      await this.store.deleteSession(idHash);
      return undefined;
    }
    if (row.client_ref !== null) {
      const client = await this.clients.get(row.client_ref).catch(() => undefined);
      if (client?.status !== 'active') return undefined;
    }
    // Writing on every request would be wasteful; a minute of precision is plenty for an idle timeout.
    if (now - Number(row.last_seen_at) > 60_000) await this.store.touch(idHash, now);
    const operator: SessionOperator | null =
      row.operator_sub != null && row.operator_issuer != null && isRole(row.operator_role)
        ? {
            issuer: row.operator_issuer,
            sub: row.operator_sub,
            email: row.operator_email ?? null,
            name: row.operator_name ?? null,
            role: row.operator_role,
          }
        : null;
    return { kind, clientRef: row.client_ref, csrfToken: row.csrf_token, operator };
  }

  /** Ends the session; answers the provider's ID token of an operator's session (the logout's hint). */
  async end(sessionId: string | undefined): Promise<{ idToken: string | null }> {
    if (sessionId === undefined || sessionId === '') return { idToken: null };
    return { idToken: (await this.store.deleteSession(sha256(sessionId))) ?? null };
  }

  /** Constant-time comparison of the header a request sent with its session's CSRF token. */
  static csrfMatches(session: WebSession, sent: string | string[] | undefined): boolean {
    if (typeof sent !== 'string') return false;
    const a = Buffer.from(sent);
    const b = Buffer.from(session.csrfToken);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private async start(
    kind: SessionKind,
    clientRef: string | null,
    operator: SessionOperator | null = null,
    idToken: string | null = null,
  ): Promise<{ sessionId: string; session: WebSession }> {
    const sessionId = random();
    const csrfToken = random();
    const now = this.clock.now();
    await this.store.insertSession({
      id_hash: sha256(sessionId),
      kind,
      client_ref: clientRef,
      csrf_token: csrfToken,
      created_at: now,
      last_seen_at: now,
      operator_issuer: operator?.issuer ?? null,
      operator_sub: operator?.sub ?? null,
      operator_email: operator?.email ?? null,
      operator_name: operator?.name ?? null,
      operator_role: operator?.role ?? null,
      id_token: idToken,
    });
    return { sessionId, session: { kind, clientRef, csrfToken, operator } };
  }
}
