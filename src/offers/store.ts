/** SQL for offers. The public query is one statement served by the (ean, status, price_cents) index. */
import type { Executor } from '../db/database.js';
import type { NewOffer, OfferRow, OfferUpdate } from '../db/schema.js';
import type { PublicOfferRow } from './model.js';

export interface OfferFilter {
  ean?: string | undefined;
  status?: string | undefined;
  /** Return offers with a larger id than this (cursor paging). */
  afterId?: number | undefined;
  limit: number;
}

export class OfferStore {
  constructor(private readonly db: Executor) {}

  /**
   * Published offers for these EANs, by EAN, then cheapest first, then oldest first. Only the public
   * columns are read: building a row object costs per column, and this is the hottest query.
   */
  findPublishedByEans(eans: readonly string[]): Promise<PublicOfferRow[]> {
    return this.db
      .selectFrom('offers')
      .select(['id', 'ean', 'price_cents', 'condition', 'remarks'])
      .where('ean', 'in', eans)
      .where('status', '=', 'published')
      .orderBy('ean')
      .orderBy('price_cents')
      .orderBy('id')
      .execute();
  }

  findById(id: number): Promise<OfferRow | undefined> {
    return this.db.selectFrom('offers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(filter: OfferFilter): Promise<OfferRow[]> {
    let query = this.db.selectFrom('offers').selectAll();
    if (filter.ean !== undefined) query = query.where('ean', '=', filter.ean);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
    return query.orderBy('id').limit(filter.limit).execute();
  }

  async insert(offer: NewOffer): Promise<OfferRow> {
    return this.db.insertInto('offers').values(offer).returningAll().executeTakeFirstOrThrow();
  }

  update(id: number, changes: OfferUpdate): Promise<OfferRow | undefined> {
    return this.db.updateTable('offers').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('offers').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
