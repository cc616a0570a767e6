/**
 * What an offer is, to buyers and to the operator. Money is integer cents inside and euros outside;
 * the public `price` is what the buyer pays: the seller's price plus the platform's service fee.
 */
import { isoTime } from '../clock.js';
import type { OfferRow } from '../db/schema.js';

export const OFFER_CONDITIONS = ['excellent', 'good', 'acceptable'] as const;
export type OfferCondition = (typeof OFFER_CONDITIONS)[number];

/** Only `published` offers are visible on the public API; the others are the offer's later life. */
export const OFFER_STATUSES = ['draft', 'published', 'reserved', 'sold', 'withdrawn'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** Upper bound of a seller's price, in euros: a typo guard, no school book costs more. */
export const MAX_PRICE_EUROS = 100_000;

export interface PublicOffer {
  id: number;
  ean: string;
  price: number;
  serviceFee: number;
  currency: 'EUR';
  condition: OfferCondition;
  remarks: string | null;
}

export interface AdminOffer extends PublicOffer {
  status: OfferStatus;
  sellerPrice: number;
  createdAt: string;
  updatedAt: string;
}

const isCondition = (value: string): value is OfferCondition => (OFFER_CONDITIONS as readonly string[]).includes(value);
const isStatus = (value: string): value is OfferStatus => (OFFER_STATUSES as readonly string[]).includes(value);

/** Integer cents to euros; an integer divided by 100 is the double nearest the 2-decimal amount. */
export const euros = (cents: number): number => cents / 100;

/** The columns the public shape needs (the public query reads only these). */
export type PublicOfferRow = Pick<OfferRow, 'id' | 'ean' | 'price_cents' | 'condition' | 'remarks'>;

export function publicOffer(row: PublicOfferRow, serviceFeeCents: number): PublicOffer {
  return {
    id: row.id,
    ean: row.ean,
    price: euros(row.price_cents + serviceFeeCents),
    serviceFee: euros(serviceFeeCents),
    currency: 'EUR',
    // Rows are only written through the service, which checks these; fall back rather than leak a bad value.
    condition: isCondition(row.condition) ? row.condition : 'acceptable',
    remarks: row.remarks,
  };
}

export function adminOffer(row: OfferRow, serviceFeeCents: number): AdminOffer {
  return {
    ...publicOffer(row, serviceFeeCents),
    status: isStatus(row.status) ? row.status : 'withdrawn',
    sellerPrice: euros(row.price_cents),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/**
 * Path ids are parsed here rather than by the schema: anything that is not a positive integer that
 * fits the id column answers 404 like an unknown id, so probing learns nothing and PostgreSQL never
 * sees an out-of-range integer.
 */
export function parseOfferId(raw: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) return undefined;
  const id = Number(raw);
  return id <= 2_147_483_647 ? id : undefined;
}
