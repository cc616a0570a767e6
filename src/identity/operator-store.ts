/** SQL behind operators and their sign-ins in progress (migration 0015). */
import type { Kysely } from 'kysely';
import type { OperatorsTable } from '../db/operator-tables.js';
import type { Database } from '../db/schema.js';

export type OperatorRow = OperatorsTable;

export class OperatorStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insertSignIn(row: {
    id_hash: string;
    state: string;
    nonce: string;
    code_verifier: string;
    expires_at: number;
  }): Promise<void> {
    await this.db.insertInto('oidc_sign_ins').values(row).execute();
  }

  /** Takes a sign-in in progress once (a DELETE … RETURNING: two callbacks cannot both have it). */
  async consumeSignIn(
    idHash: string,
    now: number,
  ): Promise<{ state: string; nonce: string; code_verifier: string } | undefined> {
    const row = await this.db
      .deleteFrom('oidc_sign_ins')
      .where('id_hash', '=', idHash)
      .returning(['state', 'nonce', 'code_verifier', 'expires_at'])
      .executeTakeFirst();
    return row === undefined || Number(row.expires_at) <= now ? undefined : row;
  }

  /** Housekeeping: sign-ins abandoned at the provider. */
  async pruneSignIns(now: number): Promise<void> {
    await this.db.deleteFrom('oidc_sign_ins').where('expires_at', '<=', now).execute();
  }

  find(issuer: string, sub: string): Promise<OperatorRow | undefined> {
    return this.db
      .selectFrom('operators')
      .selectAll()
      .where('issuer', '=', issuer)
      .where('sub', '=', sub)
      .executeTakeFirst();
  }

  /** Records a sign-in: the identity's current e-mail, name and role; the first sign-in's time is kept. */
  async recordSignIn(row: Omit<OperatorRow, 'disabled_at' | 'first_sign_in_at' | 'last_sign_in_at'>, now: number) {
    await this.db
      .insertInto('operators')
      .values({ ...row, disabled_at: null, first_sign_in_at: now, last_sign_in_at: now })
      .onConflict((conflict) =>
        conflict
          .columns(['issuer', 'sub'])
          .doUpdateSet({ email: row.email, name: row.name, role: row.role, last_sign_in_at: now }),
      )
      .execute();
  }

  /** Newest sign-in first. */
  list(): Promise<OperatorRow[]> {
    return this.db.selectFrom('operators').selectAll().orderBy('last_sign_in_at', 'desc').orderBy('sub').execute();
  }

  async setDisabled(issuer: string, sub: string, disabledAt: number | null): Promise<void> {
    await this.db
      .updateTable('operators')
      .set({ disabled_at: disabledAt })
      .where('issuer', '=', issuer)
      .where('sub', '=', sub)
      .execute();
  }
}
