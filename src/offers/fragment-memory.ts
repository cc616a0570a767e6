/**
 * Keeping the read model's per-EAN memory small, whoever chooses the EANs (every caller with
 * offers:read can ask for made-up ones, and each is cached as "no offers"):
 *
 * - `ownedKey`: an EAN parsed out of the `eans` query value is a V8 sliced string (13 characters is
 *   V8's threshold for slicing), which keeps the whole query value alive for as long as it is a map
 *   key. One new EAN among 99 known ones would pin ~1.4 KB per cache entry; a copy pins 13 bytes.
 * - every EAN without offers shares one frozen fragment, `NO_OFFERS` (fragment.ts), instead of an
 *   object and an empty array of its own.
 *
 * docs/decisions/0001-offers-read-model.md.
 */

/** A flat copy of an EAN (ASCII digits), so a cache key never retains the string it was cut from. */
export const ownedKey = (ean: string): string => Buffer.from(ean, 'latin1').toString('latin1');
