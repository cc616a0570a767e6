/** SQL for remembered Idempotency-Key answers; the rules are in service.ts. */
import type { Executor } from '../db/database.js';
import type { IdempotencyRow } from '../db/schema.js';

export class IdempotencyStore {
  constructor(private readonly db: Executor) {}

  /** Claims (owner, key) for a new request; false when a row already exists. */
  async claim(
    row: Pick<IdempotencyRow, 'owner' | 'key' | 'request_hash' | 'created_at' | 'expires_at'>,
  ): Promise<boolean> {
    const result = await this.db
      .insertInto('idempotency_keys')
      .values({ ...row, status_code: null, response_headers: null, response_body: null })
      .onConflict((conflict) => conflict.columns(['owner', 'key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async find(owner: string, key: string): Promise<IdempotencyRow | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('owner', '=', owner)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  async complete(owner: string, key: string, statusCode: number, headers: string, body: string | null): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ status_code: statusCode, response_headers: headers, response_body: body })
      .where('owner', '=', owner)
      .where('key', '=', key)
      .where('status_code', 'is', null)
      .execute();
  }

  /** Removes a claim whose request failed on our side, so the client's retry runs afresh. */
  async release(owner: string, key: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('owner', '=', owner)
      .where('key', '=', key)
      .where('status_code', 'is', null)
      .execute();
  }

  /** Deletes one row if it is expired or an abandoned claim (its request died before answering). */
  async dropStale(owner: string, key: string, expiredBefore: number, abandonedBefore: number): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('owner', '=', owner)
      .where('key', '=', key)
      .where((eb) =>
        eb.or([
          eb('expires_at', '<=', expiredBefore),
          eb.and([eb('status_code', 'is', null), eb('created_at', '<=', abandonedBefore)]),
        ]),
      )
      .execute();
  }

  async purgeExpired(now: number): Promise<number> {
    const result = await this.db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
