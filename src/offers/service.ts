/**
 * Rules for offers: buyers see published offers only, priced with the service fee; the operator
 * creates, changes and removes offers. Prices arrive in euros and are kept as exact integer cents.
 * Every write is one unit of work (src/changes/), so the change, its offer.* events (events.ts) and
 * its audit record commit together or not at all.
 */

import { type Fields, scalarFields } from '../audit/fields.js';
import type { Initiator } from '../audit/initiator.js';
import { changesBetween } from '../audit/recorder.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { OfferRow } from '../db/schema.js';
import type { EventfulWork } from '../events/outbox.js';
import { ids, isResourceIdentifier } from '../ids.js';
import { notFound, Problem } from '../problems/catalogue.js';
import { assertEan, parseEanList } from '../vocabulary/ean.js';
import { type Page, toPage } from '../vocabulary/paging.js';
import { contentFromCreate, contentFromUpdate, UPDATABLE_FIELDS } from './content.js';
import { offerEvents, publishedAt } from './events.js';
import type { PublishedOffers } from './fragment.js';
import { type OfferStatus, parseOfferId } from './model.js';
import type { OfferReadModel } from './read-model.js';
import type { AdminOffer, PublicOffer } from './schemas.js';
import { adminOffer, type CreateOfferInput, publicOffer, type UpdateOfferInput } from './schemas.js';
import { OfferStore } from './store.js';

export { DEFAULT_OFFER_STATUS, toCents } from './model.js';
export type { CreateOfferInput, UpdateOfferInput };

export interface OfferListQuery {
  ean?: string | undefined;
  status?: OfferStatus | undefined;
  limit?: number | undefined;
  startingAfter?: number | undefined;
}

export const DEFAULT_OFFER_PAGE = 50;

export class OfferService {
  constructor(
    private readonly store: OfferStore,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'serviceFeeCents'>,
    readonly readModel: OfferReadModel,
    private readonly work: EventfulWork,
  ) {}

  /**
   * The public query: `eans` as the client sent it, answered as a JSON array from the read model
   * (the same bytes the query below would serialise to; the property tests hold the two together).
   */
  async findPublishedJson(eansParameter: string | undefined): Promise<string> {
    return (await this.readModel.published(parseEanList(eansParameter))).json;
  }

  /** The same JSON with its entity tag, for the HTTP route; synchronous when the read model remembers it. */
  findPublishedWithTag(eansParameter: string | undefined): PublishedOffers | Promise<PublishedOffers> {
    return this.readModel.answer(eansParameter);
  }

  /** The same answer straight from the database, bypassing the read model. */
  async findPublished(eansParameter: string | undefined): Promise<PublicOffer[]> {
    const eans = parseEanList(eansParameter);
    const rows = await this.store.findPublishedByEans(eans);
    return rows.map((row) => publicOffer(row, this.config.serviceFeeCents));
  }

  /** One published offer; drafts, sold and withdrawn offers are as unknown as ids that never existed. */
  async getPublished(rawId: string): Promise<PublicOffer> {
    const row = await this.findRow(rawId);
    if (row?.status !== 'published') throw notFound(`offer ${rawId}`);
    return publicOffer(row, this.config.serviceFeeCents);
  }

  async create(input: CreateOfferInput, by: Initiator): Promise<AdminOffer> {
    const now = this.clock.now();
    const content = contentFromCreate(input);
    const row = await this.work.run(by, async ({ trx, emit, record }) => {
      const inserted = await new OfferStore(trx).insert({
        ...content,
        identifier: ids.resourceIdentifier(),
        published_at: publishedAt(undefined, content.status, now),
        created_at: now,
        updated_at: now,
      });
      for (const event of offerEvents(undefined, inserted)) emit(event);
      record('offer.created', String(inserted.id), changesBetween(null, this.auditFields(inserted)));
      return inserted;
    });
    this.readModel.invalidate([row.ean]);
    return adminOffer(row, this.config.serviceFeeCents);
  }

  async list(query: OfferListQuery): Promise<Page<AdminOffer>> {
    const limit = query.limit ?? DEFAULT_OFFER_PAGE;
    const ean = query.ean?.trim();
    if (ean !== undefined) assertEan(ean);
    // One row more than asked tells whether another page exists without a count query.
    const rows = await this.store.list({ ean, status: query.status, afterId: query.startingAfter, limit: limit + 1 });
    return toPage(rows, limit, (row) => adminOffer(row, this.config.serviceFeeCents));
  }

  async get(rawId: string): Promise<AdminOffer> {
    const row = await this.findRow(rawId);
    if (row === undefined) throw notFound(`offer ${rawId}`);
    return adminOffer(row, this.config.serviceFeeCents);
  }

  async update(rawId: string, patch: UpdateOfferInput, by: Initiator): Promise<AdminOffer> {
    // Validated before the offer is looked up, so a bad price is reported the same for every id.
    const changes = contentFromUpdate(patch);
    if (Object.keys(changes).length === 0) {
      throw new Problem('validation-failed', `send at least one of ${UPDATABLE_FIELDS.join(', ')}`);
    }
    const id = parseOfferId(rawId);
    const now = this.clock.now();
    const row =
      id === undefined
        ? undefined
        : await this.work.run(by, async ({ trx, emit, record }) => {
            const store = new OfferStore(trx);
            // Read and changed in one transaction; the events compare the two.
            const before = await store.findById(id, { forUpdate: !this.work.dialect.serialWriters });
            if (before === undefined) return undefined;
            const status = changes.status ?? before.status;
            const after = await store.update(id, {
              ...changes,
              published_at: publishedAt(before, status, now),
              updated_at: now,
            });
            for (const event of offerEvents(before, after)) emit(event);
            const fields = after === undefined ? {} : changesBetween(this.auditFields(before), this.auditFields(after));
            if (Object.keys(fields).length > 0) record('offer.updated', String(id), fields);
            return after;
          });
    if (row === undefined) throw notFound(`offer ${rawId}`);
    this.readModel.invalidate([row.ean]);
    return adminOffer(row, this.config.serviceFeeCents);
  }

  async remove(rawId: string, by: Initiator): Promise<void> {
    const id = parseOfferId(rawId);
    const removed =
      id === undefined
        ? undefined
        : await this.work.run(by, async ({ trx, emit, record }) => {
            const store = new OfferStore(trx);
            const before = await store.findById(id, { forUpdate: !this.work.dialect.serialWriters });
            if (before === undefined || !(await store.delete(id))) return undefined;
            for (const event of offerEvents(before, undefined)) emit(event);
            record('offer.deleted', String(id), changesBetween(this.auditFields(before), null));
            return before;
          });
    if (removed === undefined) throw notFound(`offer ${rawId}`);
    this.readModel.invalidate([removed.ean]);
  }

  /** What the audit log keeps of an offer: the scalar fields of its admin view, times left out. */
  private auditFields(row: OfferRow): Fields {
    const { createdAt: _created, updatedAt: _updated, ...view } = adminOffer(row, this.config.serviceFeeCents);
    return scalarFields(view, Object.keys(view) as (keyof typeof view & string)[]);
  }

  /** By integer id or by the public identifier (32 lower-case hex). */
  private async findRow(raw: string): Promise<OfferRow | undefined> {
    if (isResourceIdentifier(raw)) return this.store.findByIdentifier(raw);
    const id = parseOfferId(raw);
    return id === undefined ? undefined : this.store.findById(id);
  }
}
