/**
 * SQL of the offers import, in the import's transaction: the offers of earlier imports by their keys,
 * and a batch of new offers with their keys in two bulk statements (db/bulk-insert.ts).
 */

import { sql } from 'kysely';
import { type BulkColumn, bulkInsert } from '../db/bulk-insert.js';
import { EVERY_KEY, MAX_MISSING, OFFER_CHANGES_CHANNEL } from '../db/change-log.js';
import type { Dialect, Executor } from '../db/database.js';
import type { NewOffer, OfferRow, OfferUpdate } from '../db/schema.js';
import type { OfferContent } from './content.js';

/**
 * The EANs an import changed, for its own change-log entries. Past MAX_MISSING / 2 of them a reader
 * could not follow entries drawn by one open transaction (db/change-log.ts), so the import records
 * EVERY_KEY instead and stops collecting.
 */
export class ChangedEans {
  private readonly eans = new Set<string>();
  private many = false;

  add(ean: string): this {
    if (this.many) return this;
    this.eans.add(ean);
    if (this.eans.size > MAX_MISSING / 2) {
      this.many = true;
      this.eans.clear();
    }
    return this;
  }

  entries(): ReadonlySet<string> | typeof EVERY_KEY {
    return this.many ? EVERY_KEY : this.eans;
  }
}

/** A new offer and the import key it is recorded under. */
export interface NewImportedOffer {
  key: string;
  offer: Required<Pick<NewOffer, OfferColumn>>;
}

const OFFER_COLUMNS = [
  { name: 'ean', pgType: 'text' },
  { name: 'price_cents', pgType: 'integer' },
  { name: 'condition', pgType: 'text' },
  { name: 'status', pgType: 'text' },
  { name: 'remarks', pgType: 'text' },
  { name: 'identifier', pgType: 'text' },
  { name: 'published_at', pgType: 'bigint' },
  { name: 'created_at', pgType: 'bigint' },
  { name: 'updated_at', pgType: 'bigint' },
] as const satisfies readonly BulkColumn[];
type OfferColumn = (typeof OFFER_COLUMNS)[number]['name'];

/** Every column of an offer's content is one the import writes: this fails to compile otherwise. */
const CONTENT_WRITTEN: [Exclude<keyof OfferContent, OfferColumn>] extends [never] ? true : never = true;
void CONTENT_WRITTEN;

/**
 * A new offer's row: its content and what the import adds. Written out field by field, as spreading
 * the content into a new object cost about 7 % of the importing thread's CPU (docs/performance.md#decisions).
 */
export function newOfferRow(
  content: OfferContent,
  identifier: string,
  publishedAt: number | null,
  now: number,
): NewImportedOffer['offer'] {
  return {
    ean: content.ean,
    price_cents: content.price_cents,
    condition: content.condition,
    status: content.status,
    remarks: content.remarks,
    identifier,
    published_at: publishedAt,
    created_at: now,
    updated_at: now,
  };
}

/** An offer's columns and its import key, as one statement writes both where a WITH may write. */
const KEYED_COLUMNS: readonly BulkColumn[] = [...OFFER_COLUMNS, { name: 'import_key', pgType: 'text' }];

const KEY_COLUMNS: readonly BulkColumn[] = [
  { name: 'import_key', pgType: 'text' },
  { name: 'offer_id', pgType: 'integer' },
];

export class ImportStore {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  /** The offers of earlier imports with these keys, by key. */
  async findByKeys(keys: readonly string[]): Promise<Map<string, OfferRow>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('offer_import_keys as k')
      .innerJoin('offers as o', 'o.id', 'k.offer_id')
      .selectAll('o')
      .select('k.import_key')
      // One JSON parameter whatever the batch's size: a placeholder per key made PostgreSQL plan a
      // list as long as the batch for every batch (docs/performance.md#decisions).
      .where(
        'k.import_key',
        'in',
        sql<string>`(${this.dialect.jsonRows(KEY_COLUMNS.slice(0, 1), JSON.stringify(keys.map((key) => [key])))})`,
      )
      .execute();
    return new Map(rows.map(({ import_key, ...offer }) => [import_key, offer]));
  }

  /**
   * The import's own change-log entries, where it records them itself (Dialect.recordOfferChangesByWriter):
   * one per EAN it changed, or the one that makes every reader forget every EAN (db/change-log.ts,
   * EVERY_KEY), and the NOTIFY that wakes the readers at commit.
   */
  async recordChanges(eans: ReadonlySet<string> | typeof EVERY_KEY, now: number): Promise<void> {
    const keys = eans === EVERY_KEY ? [EVERY_KEY] : [...eans];
    if (keys.length === 0) return;
    await this.db
      .insertInto('offer_changes')
      .values(keys.map((ean) => ({ ean, changed_at: now })))
      .execute();
    await this.dialect.notify(this.db, OFFER_CHANGES_CHANNEL, '');
  }

  async update(id: number, changes: OfferUpdate): Promise<void> {
    await this.db.updateTable('offers').set(changes).where('id', '=', id).execute();
  }

  /**
   * Inserts the offers, then records their keys. Each inserted row's id is found by its identifier
   * (unique, minted here), whatever order RETURNING lists the rows in. Where a WITH may write, both
   * are one statement: the ids never travel to this process and back (docs/performance.md#decisions).
   */
  async insert(fresh: readonly NewImportedOffer[]): Promise<void> {
    if (fresh.length === 0) return;
    const rows = fresh.map(({ offer }) => OFFER_COLUMNS.map((column) => offer[column.name]));
    if (this.dialect.writableCtes) {
      const keyed = fresh.map(({ key }, index) => [...(rows[index] ?? []), key]);
      const offerColumns = sql.raw(OFFER_COLUMNS.map((column) => column.name).join(', '));
      await sql`
        with batch (${sql.raw(KEYED_COLUMNS.map((column) => column.name).join(', '))}) as (
          ${this.dialect.jsonRows(KEYED_COLUMNS, JSON.stringify(keyed))}
        ), inserted as (
          insert into offers (${offerColumns})
          select ${offerColumns} from batch
          returning id, identifier
        )
        insert into offer_import_keys (import_key, offer_id)
        select batch.import_key, inserted.id from inserted inner join batch on batch.identifier = inserted.identifier`.execute(
        this.db,
      );
      return;
    }
    const inserted = await bulkInsert<{ id: number; identifier: string }>(
      this.db,
      this.dialect,
      'offers',
      OFFER_COLUMNS,
      rows,
      ['id', 'identifier'],
    );
    const idOf = new Map(inserted.map((row) => [row.identifier, Number(row.id)]));
    await bulkInsert(
      this.db,
      this.dialect,
      'offer_import_keys',
      KEY_COLUMNS,
      fresh.map(({ key, offer }) => [key, idOf.get(offer.identifier)]),
    );
  }
}
