/**
 * Rules for offers: buyers see published offers only, priced with the service fee; the operator
 * creates, changes and removes offers. Prices arrive in euros and are kept as exact integer cents.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { OfferRow } from '../db/schema.js';
import { notFound, Problem } from '../errors.js';
import { type Page, toPage } from '../paging.js';
import { assertEan, parseEanList } from './ean.js';
import {
  type AdminOffer,
  adminOffer,
  MAX_PRICE_EUROS,
  type OfferCondition,
  type OfferStatus,
  parseOfferId,
  type PublicOffer,
  publicOffer,
} from './model.js';
import type { OfferReadModel, PublishedOffers } from './read-model.js';
import type { OfferStore } from './store.js';

export interface CreateOfferInput {
  ean: string;
  /** The seller's price in euros. */
  price: number;
  condition: OfferCondition;
  remarks?: string | null | undefined;
  status?: OfferStatus | undefined;
}

export type UpdateOfferInput = Partial<Pick<CreateOfferInput, 'price' | 'condition' | 'remarks' | 'status'>>;

export interface OfferListQuery {
  ean?: string | undefined;
  status?: OfferStatus | undefined;
  limit?: number | undefined;
  startingAfter?: number | undefined;
}

export const DEFAULT_OFFER_PAGE = 50;
/** Operator-created offers are meant to be sold, so they are visible unless the operator says draft. */
export const DEFAULT_OFFER_STATUS: OfferStatus = 'published';

/** Euros to cents, refusing anything that is not a positive amount with at most 2 decimals. */
export function toCents(price: number): number {
  if (!Number.isFinite(price) || price <= 0 || price > MAX_PRICE_EUROS) {
    throw new Problem('validation-failed', `price must be more than 0 and at most ${MAX_PRICE_EUROS} euros`);
  }
  const cents = Math.round(price * 100);
  // 0.29 * 100 is 28.999999999999996: rounding repairs that, and the division proves no third decimal was lost.
  if (cents / 100 !== price) throw new Problem('validation-failed', `price must have at most 2 decimals, got ${price}`);
  return cents;
}

function cleanRemarks(remarks: string | null | undefined): string | null {
  const trimmed = remarks?.trim();
  return trimmed === undefined || trimmed === '' ? null : trimmed;
}

export class OfferService {
  constructor(
    private readonly store: OfferStore,
    private readonly clock: Clock,
    private readonly config: Config,
    readonly readModel: OfferReadModel,
  ) {}

  /**
   * The public query: `eans` as the client sent it, answered as a JSON array from the read model
   * (the same bytes the query below would serialise to; the property tests hold the two together).
   */
  findPublishedJson(eansParameter: string | undefined): Promise<string> {
    return this.readModel.publishedJson(parseEanList(eansParameter));
  }

  /** The same JSON with its entity tag, for the HTTP route. */
  findPublishedWithTag(eansParameter: string | undefined): Promise<PublishedOffers> {
    return this.readModel.published(parseEanList(eansParameter));
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

  async create(input: CreateOfferInput): Promise<AdminOffer> {
    const ean = input.ean.trim();
    assertEan(ean);
    const now = this.clock.now();
    const row = await this.store.insert({
      ean,
      price_cents: toCents(input.price),
      condition: input.condition,
      remarks: cleanRemarks(input.remarks),
      status: input.status ?? DEFAULT_OFFER_STATUS,
      created_at: now,
      updated_at: now,
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

  async update(rawId: string, patch: UpdateOfferInput): Promise<AdminOffer> {
    if (
      patch.price === undefined &&
      patch.condition === undefined &&
      patch.remarks === undefined &&
      patch.status === undefined
    ) {
      throw new Problem('validation-failed', 'send at least one of price, condition, remarks, status');
    }
    const id = parseOfferId(rawId);
    // Validate before looking the offer up, so a bad price is reported the same for every id.
    const priceCents = patch.price === undefined ? undefined : toCents(patch.price);
    const row =
      id === undefined
        ? undefined
        : await this.store.update(id, {
            ...(priceCents === undefined ? {} : { price_cents: priceCents }),
            ...(patch.condition === undefined ? {} : { condition: patch.condition }),
            ...(patch.remarks === undefined ? {} : { remarks: cleanRemarks(patch.remarks) }),
            ...(patch.status === undefined ? {} : { status: patch.status }),
            updated_at: this.clock.now(),
          });
    if (row === undefined) throw notFound(`offer ${rawId}`);
    this.readModel.invalidate([row.ean]);
    return adminOffer(row, this.config.serviceFeeCents);
  }

  async remove(rawId: string): Promise<void> {
    const id = parseOfferId(rawId);
    const ean = id === undefined ? undefined : await this.store.delete(id);
    if (ean === undefined) throw notFound(`offer ${rawId}`);
    this.readModel.invalidate([ean]);
  }

  private async findRow(rawId: string): Promise<OfferRow | undefined> {
    const id = parseOfferId(rawId);
    return id === undefined ? undefined : this.store.findById(id);
  }
}
