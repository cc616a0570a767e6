/** SQL for API clients (credentials, scopes, webhook secrets). */

import { compiledQuery, type Executor } from '../db/database.js';
import type { ClientRow } from '../db/schema.js';

export class ClientStore {
  /**
   * Every token request and every cold token verification looks a client up by its client id: compiled
   * once, on first use (a store made for one read, as the delivery queue makes, compiles nothing).
   */
  private byClientId: ((clientId: string) => Promise<ClientRow[]>) | undefined;

  constructor(private readonly db: Executor) {}

  async insert(row: ClientRow): Promise<void> {
    await this.db.insertInto('clients').values(row).execute();
  }

  /** How many clients are not revoked (the operator's overview). */
  async countActive(): Promise<number> {
    const row = await this.db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  findById(id: string): Promise<ClientRow | undefined> {
    return this.db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByClientId(clientId: string): Promise<ClientRow | undefined> {
    this.byClientId ??= compiledQuery(this.db, (q) => q.selectFrom('clients').selectAll().where('client_id', '=', ''));
    return (await this.byClientId(clientId))[0];
  }

  /** Every client, or only the active (not revoked) or revoked ones, oldest first. */
  list(status?: 'active' | 'revoked'): Promise<ClientRow[]> {
    let query = this.db.selectFrom('clients').selectAll();
    if (status !== undefined) query = query.where('revoked_at', status === 'active' ? 'is' : 'is not', null);
    return query.orderBy('created_at').orderBy('id').execute();
  }

  /** Marks the client revoked; false when it already was (a concurrent revoke won). */
  async revoke(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('clients')
      .set({ revoked_at: now, updated_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * A new secret hash with the generation bumped in SQL (not read-then-write): concurrent resets each
   * advance it, so a token minted with any superseded secret carries an older generation and is refused.
   */
  async replaceSecret(id: string, secretHash: string, now: number): Promise<void> {
    await this.db
      .updateTable('clients')
      .set((eb) => ({
        secret_hash: secretHash,
        secret_version: eb('secret_version', '+', 1),
        tokens_valid_after: now,
        updated_at: now,
      }))
      .where('id', '=', id)
      .execute();
  }

  /**
   * The previous webhook secret is whatever is current at the moment of the write (SET reads the old
   * row), so concurrent rotations chain (previous = the secret the last-but-one rotation returned) instead
   * of all keeping the same old one and silently dropping a secret a caller was given.
   */
  async rotateWebhookSecret(id: string, webhookSecret: string, previousValidUntil: number, now: number): Promise<void> {
    await this.db
      .updateTable('clients')
      .set((eb) => ({
        webhook_secret: webhookSecret,
        previous_webhook_secret: eb.ref('webhook_secret'),
        previous_webhook_secret_expires_at: previousValidUntil,
        updated_at: now,
      }))
      .where('id', '=', id)
      .execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
