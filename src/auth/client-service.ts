/**
 * Rules for API clients: minting credentials (shown once), resetting the secret (old secret and
 * every token issued with it stop working), rotating the webhook secret with an overlap, revoking.
 */

import type { Initiator } from '../audit/initiator.js';
import { ROTATED } from '../audit/recorder.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import type { Config } from '../config.js';
import type { Executor } from '../db/database.js';
import type { ClientRow } from '../db/schema.js';
import { ids, secrets } from '../ids.js';
import { notFound, Problem } from '../problems/catalogue.js';
import type { ClientStatus, ClientView, CreatedClient } from './client-schemas.js';
import type { ClientStates } from './client-states.js';
import { ClientStore } from './client-store.js';
import { isScope, parseScopes, SCOPES } from './scopes.js';
import type { SecretHasher } from './secret-hash.js';

export interface CreateClientInput {
  name: string;
  scopes?: string[] | undefined;
  /** Only for demo seeding: fixed, documented credentials. */
  fixedCredentials?: { clientId: string; clientSecret: string; webhookSecret: string } | undefined;
}

/**
 * What a client's revocation ends beside the client itself, in the revoke's transaction (its
 * subscriptions, waiting deliveries, portal sessions and links); the composition root supplies it, so
 * this capability names none of them. Answers a count of each, which the audit record keeps.
 */
export type EndClientDependents = (trx: Executor, clientRef: string, now: number) => Promise<Record<string, number>>;

/** A client's credentials checked: its row, `revoked` (right secret, revoked client), or undefined (wrong or unknown). */
export type Authentication = ClientRow | 'revoked' | undefined;

export class ClientService {
  constructor(
    private readonly store: ClientStore,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'webhookSecretOverlapSeconds'>,
    /** What token checks know of each client, forgotten after a reset or revocation so they see it at once. */
    private readonly clientStates: ClientStates,
    /** Every change of a client runs in one, its audit record with it. */
    private readonly work: UnitOfWork,
    private readonly endDependents: EndClientDependents = async () => ({}),
  ) {}

  static view(row: ClientRow): ClientView {
    return {
      id: row.id,
      clientId: row.client_id,
      name: row.name,
      scopes: parseScopes(row.scopes),
      status: row.revoked_at === null ? 'active' : 'revoked',
      tokensValidAfter: isoTime(row.tokens_valid_after),
      createdAt: isoTime(row.created_at),
      updatedAt: isoTime(row.updated_at),
    };
  }

  async create(input: CreateClientInput, by: Initiator): Promise<CreatedClient> {
    const name = input.name.trim();
    if (name === '' || name.length > 200) throw new Problem('validation-failed', 'name must be 1 to 200 characters');
    const scopes = input.scopes ?? [...SCOPES];
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length > 0) {
      throw new Problem('validation-failed', `unknown scope(s): ${unknown.join(', ')}; accepted: ${SCOPES.join(', ')}`);
    }
    const now = this.clock.now();
    const clientId = input.fixedCredentials?.clientId ?? secrets.clientId();
    const clientSecret = input.fixedCredentials?.clientSecret ?? secrets.clientSecret();
    const webhookSecret = input.fixedCredentials?.webhookSecret ?? secrets.webhookSecret();
    const row: ClientRow = {
      id: ids.client(),
      client_id: clientId,
      name,
      secret_hash: this.hasher.hash(clientSecret),
      secret_version: 1,
      tokens_valid_after: now,
      scopes: [...new Set(scopes)].join(' '),
      webhook_secret: webhookSecret,
      previous_webhook_secret: null,
      previous_webhook_secret_expires_at: null,
      revoked_at: null,
      created_at: now,
      updated_at: now,
    };
    const view = ClientService.view(row);
    await this.work.run(by, async ({ trx, record }) => {
      await new ClientStore(trx).insert(row);
      record('client.created', row.id, {
        name: { before: null, after: view.name },
        scopes: { before: null, after: view.scopes },
        status: { before: null, after: view.status },
      });
    });
    // An id asked for before it existed (the demo client's fixed one) is not remembered as unknown.
    this.clientStates.forget(clientId);
    return { ...view, clientSecret, webhookSecret };
  }

  async count(): Promise<number> {
    return this.store.count();
  }

  async list(status?: ClientStatus): Promise<ClientView[]> {
    return (await this.store.list(status)).map(ClientService.view);
  }

  async get(id: string): Promise<ClientView> {
    return ClientService.view(await this.require(id));
  }

  /**
   * Checks a clientId/clientSecret pair: the client, `revoked` when the pair is right but the client
   * was revoked (only the secret's holder learns that), or undefined when wrong or unknown (no hint which).
   * The row is the one read less than CLIENT_STATE_TTL_MS ago when there is one (client-states.ts),
   * so the token endpoint's hot path runs no query.
   */
  async authenticate(clientId: string, clientSecret: string): Promise<Authentication> {
    const now = this.clock.now();
    const known = this.clientStates.rowOf(clientId, now);
    if (known !== undefined) return this.check(known.row, clientSecret);
    const seen = this.clientStates.changes;
    const row = await this.store.findByClientId(clientId);
    this.clientStates.keepRow(clientId, row, now, seen);
    return this.check(row, clientSecret);
  }

  private check(row: ClientRow | undefined, clientSecret: string): Authentication {
    // Hash even for unknown clients so timing does not reveal which client ids exist.
    const matches = this.hasher.matches(clientSecret, row?.secret_hash ?? 'x');
    if (row === undefined || !matches) return undefined;
    return row.revoked_at === null ? row : 'revoked';
  }

  findByClientId(clientId: string): Promise<ClientRow | undefined> {
    return this.store.findByClientId(clientId);
  }

  async resetSecret(id: string, by: Initiator): Promise<{ clientSecret: string }> {
    const row = await this.require(id);
    const clientSecret = secrets.clientSecret();
    const now = this.clock.now();
    await this.work.run(by, async ({ trx, record }) => {
      await new ClientStore(trx).replaceSecret(id, this.hasher.hash(clientSecret), now);
      record('client.secret.reset', id, {
        clientSecret: { before: null, after: ROTATED },
        tokensValidAfter: { before: isoTime(row.tokens_valid_after), after: isoTime(now) },
      });
    });
    this.clientStates.forget(row.client_id);
    return { clientSecret };
  }

  async rotateWebhookSecret(
    id: string,
    by: Initiator,
  ): Promise<{ webhookSecret: string; previousSecretValidUntil: string }> {
    const row = await this.require(id);
    const webhookSecret = secrets.webhookSecret();
    const now = this.clock.now();
    const overlapUntil = now + this.config.webhookSecretOverlapSeconds * 1000;
    const before = row.previous_webhook_secret_expires_at;
    await this.work.run(by, async ({ trx, record }) => {
      await new ClientStore(trx).rotateWebhookSecret(id, webhookSecret, overlapUntil, now);
      record('client.webhook-secret.rotated', id, {
        webhookSecret: { before: null, after: ROTATED },
        previousSecretValidUntil: { before: before === null ? null : isoTime(before), after: isoTime(overlapUntil) },
      });
    });
    return { webhookSecret, previousSecretValidUntil: isoTime(overlapUntil) };
  }

  /**
   * Revokes a client and, in the same transaction, everything that acts for it (EndClientDependents).
   * Revoking a revoked client changes nothing, so it records nothing.
   */
  async revoke(id: string, by: Initiator): Promise<void> {
    const row = await this.require(id);
    const now = this.clock.now();
    if (row.revoked_at === null)
      await this.work.run(by, async ({ trx, record }) => {
        if (!(await new ClientStore(trx).revoke(id, now))) return;
        const ended = await this.endDependents(trx, id, now);
        const counts = Object.fromEntries(
          Object.entries(ended).map(([name, count]) => [name, { before: null, after: count }]),
        );
        record('client.revoked', id, {
          status: { before: 'active', after: 'revoked' },
          ...counts,
        });
      });
    this.clientStates.forget(row.client_id);
  }

  private async require(id: string): Promise<ClientRow> {
    const row = await this.store.findById(id);
    if (row === undefined) throw notFound(`client ${id}`);
    return row;
  }
}
