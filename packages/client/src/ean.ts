/**
 * EAN-8, EAN-13 (ISBN-13) and GTIN-14 with their mod-10 check digit: the service's rules, applied before
 * a request is sent so a typo fails at once and names the code.
 */
import type { InvalidEan } from './errors.js';

/** The most distinct codes the service accepts in one offers query. */
export const MAX_EANS_PER_QUERY = 100;

export function eanCheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (body.charCodeAt(i) - 48) * weight;
  return (10 - (sum % 10)) % 10;
}

/** undefined when valid, else the reason (the same words the service uses). */
export function eanProblem(ean: string): string | undefined {
  if (ean === '') return 'is empty';
  if (!/^[0-9]+$/.test(ean)) return 'contains characters other than digits';
  if (ean.length !== 8 && ean.length !== 13 && ean.length !== 14) return 'not 8, 13 or 14 digits';
  const expected = eanCheckDigit(ean.slice(0, -1));
  return expected === Number(ean.at(-1)) ? undefined : `check digit should be ${expected}`;
}

export const isValidEan = (ean: string): boolean => eanProblem(ean) === undefined;

/** Trims, drops blanks and duplicates (first occurrence wins) and lists every invalid code. */
export function normaliseEans(eans: readonly string[]): { eans: string[]; invalid: InvalidEan[] } {
  const unique = [...new Set(eans.map((ean) => ean.trim()).filter((ean) => ean !== ''))];
  const invalid: InvalidEan[] = [];
  for (const ean of unique) {
    const reason = eanProblem(ean);
    if (reason !== undefined) invalid.push({ ean, reason });
  }
  return { eans: unique, invalid };
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
