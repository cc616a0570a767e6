/**
 * What an offer is, to buyers and to the operator. Money is integer cents inside and euros outside;
 * the public `price` is what the buyer pays: the seller's price plus the platform's service fee.
 * The shapes themselves are TypeBox schemas built from one field table (fields.ts); their types are
 * in schemas.ts.
 */
import { Problem } from '../problems/catalogue.js';

export const OFFER_CONDITIONS = ['excellent', 'good', 'acceptable'] as const;
export type OfferCondition = (typeof OFFER_CONDITIONS)[number];

/** 0 acceptable, 1 good, 2 excellent: higher is better (an unknown stored word counts as the worst). */
export function conditionQuality(condition: string): number {
  const index = (OFFER_CONDITIONS as readonly string[]).indexOf(condition);
  return index < 0 ? 0 : OFFER_CONDITIONS.length - 1 - index;
}

/** Only `published` offers are visible on the public API; the others are the offer's later life. */
export const OFFER_STATUSES = ['draft', 'published', 'reserved', 'sold', 'withdrawn'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** Operator-created offers are meant to be sold, so they are visible unless the operator says draft. */
export const DEFAULT_OFFER_STATUS: OfferStatus = 'published';

/** Upper bound of a seller's price, in euros: a typo guard, no school book costs more. */
export const MAX_PRICE_EUROS = 100_000;

export const isCondition = (value: string): value is OfferCondition =>
  (OFFER_CONDITIONS as readonly string[]).includes(value);
export const isStatus = (value: string): value is OfferStatus => (OFFER_STATUSES as readonly string[]).includes(value);

/** Integer cents to euros; an integer divided by 100 is the double nearest the 2-decimal amount. */
export const euros = (cents: number): number => cents / 100;

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

/** Trimmed text, or null when absent or blank. */
export function cleanText(text: string | null | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? null : trimmed;
}

const OFFER_ID = /^[1-9][0-9]{0,9}$/;
/** An offer id as the API document states it (its path parameter); the column's bound is parseOfferId's. */
export const OFFER_ID_PATTERN = OFFER_ID.source;

/**
 * Path ids are parsed here rather than by the schema: anything that is not a positive integer that
 * fits the id column answers 404 like an unknown id, so probing learns nothing and PostgreSQL never
 * sees an out-of-range integer.
 */
export function parseOfferId(raw: string): number | undefined {
  if (!OFFER_ID.test(raw)) return undefined;
  const id = Number(raw);
  return id <= 2_147_483_647 ? id : undefined;
}
