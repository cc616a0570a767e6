/**
 * The catalogue scenario's data: a CSV of offers as an operator would import it, and the queries a
 * shop's traffic makes of it. Both are drawn from a seeded generator, so every party and every run
 * sees the same catalogue and the same requests.
 *
 * - EAN i (0 ≤ i < eans) has 1, 2 or 3 offers in turn (2 on average); one offer in 20 is sold, not
 *   published; one in 5 has remarks with a comma and quotes (CSV quoting, JSON escaping).
 * - A query is one EAN (a product page) 60 % of the time, else ten distinct EANs (a book list). Each
 *   EAN is drawn by a Zipf law over the catalogue (a few books hot, most cold), or, 5 % of the time,
 *   an EAN that has no offers.
 */

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** An ISBN-13 (EAN-13) with a correct check digit, from a serial. */
export function isbn(serial: number): string {
  const body = `978${String(serial).padStart(9, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return body + String((10 - (sum % 10)) % 10);
}

/** The catalogue's EAN of index i; serials from 100,000,000 up, unknown ones from 800,000,000 up. */
export const catalogueEan = (index: number): string => isbn(100_000_000 + index);
const unknownEan = (index: number): string => isbn(800_000_000 + index);

/** Offers of EAN i: 1, 2, 3, 1, 2, 3, ... */
const offersOf = (index: number): number => 1 + (index % 3);

/** Writes the catalogue CSV for `offers` offers over `eans` EANs (offers ≈ 2 × eans); answers the rows written. */
export async function writeCatalogueCsv(path: string, eans: number, offers: number, from = 0): Promise<number> {
  const out = createWriteStream(path);
  out.write('ean,price,condition,status,remarks\n');
  let written = 0;
  let chunk = '';
  for (let e = from; written < offers; e = e + 1 >= from + eans ? from : e + 1) {
    const ean = catalogueEan(e);
    for (let o = 0; o < offersOf(e) && written < offers; o++, written++) {
      const n = written;
      const price = (3 + ((n * 7 + e) % 60) + (n % 4) * 0.25).toFixed(2);
      const condition = ['excellent', 'good', 'acceptable'][(n + o) % 3];
      const status = n % 20 === 19 ? 'sold' : 'published';
      const remarks = n % 5 === 0 ? `"Some ""highlighting"", page ${n % 300}"` : '';
      chunk += `${ean},${price},${condition},${status},${remarks}\n`;
    }
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return written;
}

/** A small seeded generator (mulberry32): the same stream of numbers in [0, 1) for the same seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Ranks 0..n-1 drawn with probability ∝ 1 / (rank + 1)^s, by a binary search of the cumulative weights. */
function zipf(n: number, s: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank++) {
    total += 1 / (rank + 1) ** s;
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((cumulative[mid] as number) < target) low = mid + 1;
      else high = mid;
    }
    return low;
  };
}

export interface QueryMix {
  /** EANs in the catalogue. */
  eans: number;
  /** How many query paths to draw (the load generator cycles through them). */
  count: number;
  seed: number;
  /** Zipf exponent; 1 unless told. */
  skew?: number;
}

/** `count` request paths of the mix, `/api/v1/offers?eans=...`, EANs in the order drawn. */
export function catalogueQueries({ eans, count, seed, skew = 1 }: QueryMix): string[] {
  const random = seeded(seed);
  const rank = zipf(eans, skew, random);
  // Hot books are spread over the catalogue rather than being its first serials.
  const stride = 7919;
  const draw = (): string =>
    random() < 0.05 ? unknownEan(Math.floor(random() * 1_000_000)) : catalogueEan((rank() * stride) % eans);
  const paths: string[] = [];
  for (let q = 0; q < count; q++) {
    const wanted = random() < 0.6 ? 1 : 10;
    const picked = new Set<string>();
    while (picked.size < wanted) picked.add(draw());
    paths.push(`/api/v1/offers?eans=${[...picked].join(',')}`);
  }
  return paths;
}
