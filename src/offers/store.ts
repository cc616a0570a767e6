/**
 * SQL for offers. The public query is one statement served by the (ean, status, price_cents) index;
 * triggers record every change in `offer_changes` for the read model of every node.
 */
import type { Executor } from '../db/database.js';
import type { NewOffer, OfferRow, OfferUpdate } from '../db/schema.js';
import { PUBLIC_OFFER_COLUMNS, type PublicOfferRow } from './schemas.js';

export interface OfferFilter {
  ean?: string | undefined;
  status?: string | undefined;
  /** Return offers with a larger id than this (cursor paging). */
  afterId?: number | undefined;
  limit: number;
}

export class OfferStore {
  constructor(private readonly db: Executor) {}

  /** How many offers are published (the operator's overview). */
  async countPublished(): Promise<number> {
    const row = await this.db
      .selectFrom('offers')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', 'published')
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /**
   * Published offers for these EANs, by EAN, then cheapest first, then oldest first. Only the public
   * columns are read: building a row object costs per column, and this is the hottest query.
   */
  findPublishedByEans(eans: readonly string[]): Promise<PublicOfferRow[]> {
    return this.db
      .selectFrom('offers')
      .select(PUBLIC_OFFER_COLUMNS)
      .where('ean', 'in', eans)
      .where('status', '=', 'published')
      .orderBy('ean')
      .orderBy('price_cents')
      .orderBy('id')
      .execute();
  }

  /** How many EANs have published offers (whether the whole catalogue fits the read model). */
  async countPublishedEans(): Promise<number> {
    const row = await this.db
      .selectFrom('offers')
      .select((eb) => eb.fn.count<number | string>('ean').distinct().as('count'))
      .where('status', '=', 'published')
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /**
   * The published offers of the EANs after `after`, about `rows` of them, every offer of each EAN,
   * ordered as findPublishedByEans. Two ranges of the (ean, status, price_cents) index: the EAN at the
   * chunk's last row, then the offers up to it (an IN of a subquery made PostgreSQL scan the table).
   */
  async publishedAfter(after: string, rows: number): Promise<PublicOfferRow[]> {
    const last = await this.db
      .selectFrom('offers')
      .select('ean')
      .where('status', '=', 'published')
      .where('ean', '>', after)
      .orderBy('ean')
      .limit(1)
      .offset(rows - 1)
      .executeTakeFirst();
    let query = this.db
      .selectFrom('offers')
      .select(PUBLIC_OFFER_COLUMNS)
      .where('status', '=', 'published')
      .where('ean', '>', after);
    if (last !== undefined) query = query.where('ean', '<=', last.ean);
    return query.orderBy('ean').orderBy('price_cents').orderBy('id').execute();
  }

  /** `forUpdate` locks the row (PostgreSQL only; SQLite serialises writers anyway) for a read-then-write. */
  findById(id: number, options: { forUpdate?: boolean } = {}): Promise<OfferRow | undefined> {
    const query = this.db.selectFrom('offers').selectAll().where('id', '=', id);
    return (options.forUpdate === true ? query.forUpdate() : query).executeTakeFirst();
  }

  findByIdentifier(identifier: string): Promise<OfferRow | undefined> {
    return this.db.selectFrom('offers').selectAll().where('identifier', '=', identifier).executeTakeFirst();
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

  /** Deletes the offer and returns its EAN, or undefined when there was none. */
  async delete(id: number): Promise<string | undefined> {
    const row = await this.db.deleteFrom('offers').where('id', '=', id).returning('ean').executeTakeFirst();
    return row?.ean;
  }
}
