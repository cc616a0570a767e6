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

  /** The offers of earlier imports with these keys, with their key. */
  findByImportKeys(keys: readonly string[]): Promise<(OfferRow & { import_key: string })[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('offer_import_keys as k')
      .innerJoin('offers as o', 'o.id', 'k.offer_id')
      .selectAll('o')
      .select('k.import_key')
      .where('k.import_key', 'in', keys)
      .execute();
  }

  /**
   * Inserts offers in one statement and records their import keys. The ids come back sorted: a
   * multi-row INSERT draws its ids in row order (SQLite's rowid, PostgreSQL's sequence), whatever
   * order RETURNING lists them in, so the i-th smallest id is the i-th row.
   */
  async insertImported(offers: readonly NewOffer[], keys: readonly string[]): Promise<void> {
    if (offers.length === 0) return;
    const inserted = await this.db
      .insertInto('offers')
      .values([...offers])
      .returning('id')
      .execute();
    const ids = inserted.map((row) => Number(row.id)).sort((a, b) => a - b);
    await this.db
      .insertInto('offer_import_keys')
      .values(keys.map((key, i) => ({ import_key: key, offer_id: ids[i] ?? 0 })))
      .execute();
  }
}
