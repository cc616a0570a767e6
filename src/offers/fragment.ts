/**
 * An EAN's published offers as the read model keeps them: one ready JSON fragment, its tag, and
 * where each offer sits in it (the priced list slices offers out by span).
 */
import { hash } from 'node:crypto';
import { conditionQuality } from './model.js';
import { type PublicOfferRow, publicOffer } from './schemas.js';

/** An offer in its EAN's fragment: where its JSON is, its public price in cents and conditionQuality(). */
export interface OfferSpan {
  start: number;
  end: number;
  cents: number;
  quality: number;
}

/** The answer of the offers call: the JSON array of some EANs' fragments, and its tag. */
export interface PublishedOffers {
  json: string;
  /** A strong entity tag (quoted): equal exactly when `json` is. */
  etag: string;
}

export interface Fragment {
  json: string;
  /** SHA-1 of `json` (base64url); '' for an EAN without offers. */
  tag: string;
  /** The offers in `json`, cheapest first, then better condition, then id (the priced list's order). */
  spans: readonly OfferSpan[];
}

/**
 * Every EAN without offers shares this one frozen fragment instead of an object and an empty array of
 * its own: every caller may ask for made-up EANs, and each is cached (fragment-memory.ts).
 */
export const NO_OFFERS: Fragment = Object.freeze({ json: '', tag: '', spans: Object.freeze([]) });

/**
 * Each of `eans`' fragment from its published offers (`rows`, by EAN, price, id, as
 * OfferStore.findPublishedByEans returns them); an EAN without rows gets NO_OFFERS.
 */
export function fragmentsFromRows(
  eans: readonly string[],
  rows: readonly PublicOfferRow[],
  serviceFeeCents: number,
): Map<string, Fragment> {
  const texts = new Map<string, { json: string; spans: OfferSpan[] }>(
    eans.map((ean) => [ean, { json: '', spans: [] }]),
  );
  for (const row of rows) {
    const text = texts.get(row.ean);
    if (text === undefined) continue;
    const json = JSON.stringify(publicOffer(row, serviceFeeCents));
    if (text.json !== '') text.json += ',';
    const start = text.json.length;
    text.json += json;
    const cents = row.price_cents + serviceFeeCents;
    text.spans.push({ start, end: text.json.length, cents, quality: conditionQuality(row.condition) });
  }
  const byEan = new Map<string, Fragment>();
  for (const [ean, { json, spans }] of texts) {
    // Rows come by price, then id; a stable sort puts better conditions first among equal prices.
    spans.sort((a, b) => a.cents - b.cents || b.quality - a.quality);
    byEan.set(ean, json === '' ? NO_OFFERS : { json, tag: hash('sha1', json, 'base64url'), spans });
  }
  return byEan;
}

/** The JSON array of these fragments' offers and a strong tag derived from the fragments' own tags. */
export function joined(found: readonly (Fragment | undefined)[]): PublishedOffers {
  let json = '[';
  let tags = '';
  for (const fragment of found) {
    if (fragment === undefined || fragment.json === '') continue;
    json += json.length === 1 ? fragment.json : `,${fragment.json}`;
    tags += fragment.tag;
  }
  return { json: `${json}]`, etag: `"${hash('sha1', tags, 'base64url')}"` };
}
