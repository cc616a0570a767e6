/** SQL for webhook subscriptions. Engine-agnostic Kysely; callers pass a transaction when they hold one. */
import type { Executor } from '../db/database.js';
import type { SubscriptionRow } from '../db/schema.js';
import { afterCursor } from '../vocabulary/paging.js';
import type { RevokedReason, SubscriptionStatus } from './model.js';

/** A subscription with the owning client's public id and name, for the operator's views. */
export interface SubscriptionWithClient extends SubscriptionRow {
  client_public_id: string;
  client_name: string;
}

/** Keyset position: the (created_at, id) of the last row of the previous page. */
export interface Cursor {
  created_at: number;
  id: string;
}

export interface AdminFilter {
  /** clients.id (cli_...) or the public client_id (smc_...). */
  client?: string | undefined;
  status?: SubscriptionStatus | undefined;
}

export class SubscriptionStore {
  constructor(private readonly db: Executor) {}

  /**
   * Inserts unless (client_ref, notification_url, event) exists, and returns whichever row holds that key:
   * ON CONFLICT DO NOTHING makes concurrent identical requests agree on one row without an error.
   * `filterEans` are stored with a new row (call it in a transaction when a filter has EANs).
   */
  async insertOrGet(row: SubscriptionRow, filterEans: readonly string[] = []): Promise<SubscriptionRow> {
    await this.db
      .insertInto('subscriptions')
      .values(row)
      .onConflict((conflict) => conflict.columns(['client_ref', 'notification_url', 'event']).doNothing())
      .execute();
    const stored = await this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('client_ref', '=', row.client_ref)
      .where('notification_url', '=', row.notification_url)
      .where('event', '=', row.event)
      .executeTakeFirstOrThrow();
    // The EANs of an {"eans"} filter, one row each: the outbox joins on them (events/fan-out.ts).
    if (stored.id === row.id && filterEans.length > 0)
      await this.db
        .insertInto('subscription_filter_eans')
        .values(filterEans.map((ean) => ({ subscription_id: row.id, ean })))
        .execute();
    return stored;
  }

  findSame(
    row: Pick<SubscriptionRow, 'client_ref' | 'notification_url' | 'event'>,
  ): Promise<SubscriptionRow | undefined> {
    return this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('client_ref', '=', row.client_ref)
      .where('notification_url', '=', row.notification_url)
      .where('event', '=', row.event)
      .executeTakeFirst();
  }

  async countForClient(clientRef: string): Promise<number> {
    const row = await this.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('client_ref', '=', clientRef)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  find(id: string): Promise<SubscriptionRow | undefined> {
    return this.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The ids of the subscriptions matching every given field, in id order (the delivery log's filters). */
  async idsWhere(filter: {
    id?: string | undefined;
    clientRef?: string | undefined;
    event?: string | undefined;
  }): Promise<string[]> {
    let query = this.db.selectFrom('subscriptions').select('id');
    if (filter.id !== undefined) query = query.where('id', '=', filter.id);
    if (filter.clientRef !== undefined) query = query.where('client_ref', '=', filter.clientRef);
    if (filter.event !== undefined) query = query.where('event', '=', filter.event);
    const rows = await query.orderBy('id').execute();
    return rows.map((row) => row.id);
  }

  findWithClient(id: string): Promise<SubscriptionWithClient | undefined> {
    return this.withClient().where('subscriptions.id', '=', id).executeTakeFirst();
  }

  /** One page of a client's subscriptions in creation order; fetches limit + 1 rows to tell if more exist. */
  pageForClient(clientRef: string, limit: number, after: Cursor | undefined): Promise<SubscriptionRow[]> {
    let query = this.db.selectFrom('subscriptions').selectAll().where('client_ref', '=', clientRef);
    if (after !== undefined) {
      const cursor = { created: after.created_at, id: after.id };
      query = query.where((eb) => afterCursor(eb, { created: 'created_at', id: 'id' }, cursor));
    }
    return query
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute();
  }

  /** One page across all clients for the operator, optionally filtered by client and status. */
  pageAll(filter: AdminFilter, limit: number, after: Cursor | undefined): Promise<SubscriptionWithClient[]> {
    let query = this.withClient();
    const client = filter.client;
    if (client !== undefined)
      query = query.where((eb) => eb.or([eb('clients.id', '=', client), eb('clients.client_id', '=', client)]));
    if (filter.status !== undefined) query = query.where('subscriptions.status', '=', filter.status);
    if (after !== undefined) {
      const cursor = { created: after.created_at, id: after.id };
      query = query.where((eb) =>
        afterCursor(eb, { created: 'subscriptions.created_at', id: 'subscriptions.id' }, cursor),
      );
    }
    return query
      .orderBy('subscriptions.created_at')
      .orderBy('subscriptions.id')
      .limit(limit + 1)
      .execute();
  }

  /** Deletes a client's own subscription; pending deliveries go with it (FK cascade). */
  async deleteForClient(clientRef: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('subscriptions')
      .where('id', '=', id)
      .where('client_ref', '=', clientRef)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** False for an unknown id and for a revoked subscription, which nothing brings back. */
  async enable(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('subscriptions')
      .set({ status: 'active', disabled_reason: null, failing_since: null, updated_at: now })
      .where('id', '=', id)
      .where('status', '<>', 'revoked')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Ends every subscription of a client for good; returns the ids it ended (those not ended already). */
  async revokeForClient(clientRef: string, reason: RevokedReason, now: number): Promise<string[]> {
    const rows = await this.db
      .updateTable('subscriptions')
      .set({ status: 'revoked', disabled_reason: reason, updated_at: now })
      .where('client_ref', '=', clientRef)
      .where('status', '<>', 'revoked')
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /** The client an operator names by its id (cli_...) or its public client_id (smc_...). */
  findClient(client: string): Promise<{ id: string; name: string; revoked_at: number | null } | undefined> {
    return this.db
      .selectFrom('clients')
      .select(['id', 'name', 'revoked_at'])
      .where((eb) => eb.or([eb('id', '=', client), eb('client_id', '=', client)]))
      .executeTakeFirst();
  }

  /** Only an active subscription is disabled, so the first reason (e.g. 410 Gone) is the one kept. */
  async disable(id: string, reason: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('subscriptions')
      .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  private withClient() {
    return this.db
      .selectFrom('subscriptions')
      .innerJoin('clients', 'clients.id', 'subscriptions.client_ref')
      .selectAll('subscriptions')
      .select(['clients.client_id as client_public_id', 'clients.name as client_name']);
  }
}
