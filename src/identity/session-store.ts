/** SQL behind portal sign-in links and browser sessions (see migration 0003_web_sessions). */
import type { Kysely } from 'kysely';
import type { Database, WebSessionRow } from '../db/schema.js';

export class WebSessionStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insertLink(row: {
    token_hash: string;
    client_ref: string;
    created_at: number;
    expires_at: number;
  }): Promise<void> {
    await this.db
      .insertInto('portal_links')
      .values({ ...row, used_at: null })
      .execute();
  }

  /**
   * Marks the link used and returns its client, in one conditional UPDATE so two simultaneous
   * redemptions cannot both win; undefined when unknown, used or expired.
   */
  async consumeLink(tokenHash: string, now: number): Promise<string | undefined> {
    const row = await this.db
      .updateTable('portal_links')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('client_ref')
      .executeTakeFirst();
    return row?.client_ref;
  }

  async insertSession(row: WebSessionRow): Promise<void> {
    await this.db.insertInto('web_sessions').values(row).execute();
  }

  findSession(idHash: string): Promise<WebSessionRow | undefined> {
    return this.db.selectFrom('web_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
  }

  async touch(idHash: string, now: number): Promise<void> {
    await this.db.updateTable('web_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
  }

  /** Deletes the session and answers its ID token (null: none; undefined: no such session). */
  async deleteSession(idHash: string): Promise<string | null | undefined> {
    const row = await this.db
      .deleteFrom('web_sessions')
      .where('id_hash', '=', idHash)
      .returning('id_token')
      .executeTakeFirst();
    return row === undefined ? undefined : (row.id_token ?? null);
  }

  /** Every session of one operator; answers how many there were. */
  async deleteOperatorSessions(issuer: string, sub: string): Promise<number> {
    const result = await this.db
      .deleteFrom('web_sessions')
      .where('operator_sub', '=', sub)
      .where('operator_issuer', '=', issuer)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The console sessions opened with the admin token (no operator behind them); answers how many. */
  async deleteAdminTokenSessions(): Promise<number> {
    const result = await this.db
      .deleteFrom('web_sessions')
      .where('kind', '=', 'console')
      .where('operator_sub', 'is', null)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** A revoked client's way into its portal: its sessions and its unused links, deleted; answers how many of each. */
  async deleteClientAccess(clientRef: string): Promise<{ portalSessionsEnded: number; portalLinksVoided: number }> {
    const sessions = await this.db
      .deleteFrom('web_sessions')
      .where('kind', '=', 'portal')
      .where('client_ref', '=', clientRef)
      .executeTakeFirst();
    const links = await this.db
      .deleteFrom('portal_links')
      .where('client_ref', '=', clientRef)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return { portalSessionsEnded: Number(sessions.numDeletedRows), portalLinksVoided: Number(links.numDeletedRows) };
  }

  /** Housekeeping: idle sessions and expired links are useless; removing them keeps the tables small. */
  async prune(idleBefore: number, now: number): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('last_seen_at', '<', idleBefore).execute();
    await this.db.deleteFrom('portal_links').where('expires_at', '<', now).execute();
  }
}
