/**
 * EAN/GTIN product codes: EAN-8, EAN-13 (an ISBN-13 is an EAN-13) and GTIN-14, each ending in a
 * mod-10 check digit. Used for the `eans` query of the offers API and, by the LML, for list items.
 */
import { Problem } from '../problems/catalogue.js';

/** The most distinct codes one offers query may name; keeps the IN (...) list and the response bounded. */
export const MAX_EANS_PER_QUERY = 100;

/** The lengths a code may have (EAN-8, EAN-13, GTIN-14). */
export const EAN_LENGTHS = [8, 13, 14] as const;

const ONE_EAN = `(?:${EAN_LENGTHS.map((length) => `[0-9]{${length}}`).join('|')})`;
/** The shape of one code, as the API document states it (the check digit is checked by validateEan). */
export const EAN_PATTERN = `^${ONE_EAN}$`;
/** The `eans` query as the API document states it: codes joined by commas, at most MAX_EANS_PER_QUERY. */
export const EAN_LIST_PATTERN = `^${ONE_EAN}(?:,${ONE_EAN}){0,${MAX_EANS_PER_QUERY - 1}}$`;

export type EanKind = 'EAN-8' | 'EAN-13' | 'GTIN-14';
export type EanCheck = { valid: true; kind: EanKind } | { valid: false; reason: string };

export interface InvalidEan {
  ean: string;
  reason: string;
}

/**
 * The check digit for the digits before it. GS1 weighs the digit next to the check digit 3, the one
 * before it 1, and so on alternating towards the left; that makes one rule serve every length.
 */
export function eanCheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (body.charCodeAt(i) - 48) * weight;
  return (10 - (sum % 10)) % 10;
}

export function validateEan(ean: string): EanCheck {
  if (ean === '') return { valid: false, reason: 'is empty' };
  if (!/^[0-9]+$/.test(ean)) return { valid: false, reason: 'contains characters other than digits' };
  const length = ean.length;
  if (!(EAN_LENGTHS as readonly number[]).includes(length)) return { valid: false, reason: 'not 8, 13 or 14 digits' };
  const expected = eanCheckDigit(ean.slice(0, -1));
  if (expected !== Number(ean.at(-1))) return { valid: false, reason: `check digit should be ${expected}` };
  return { valid: true, kind: length === 8 ? 'EAN-8' : length === 13 ? 'EAN-13' : 'GTIN-14' };
}

export const isValidEan = (ean: string): boolean => validateEan(ean).valid;

/** The problem for one or more bad codes: the detail names each, `invalidEans` lists them for programs. */
export function invalidEanProblem(invalid: readonly InvalidEan[]): Problem {
  const named = invalid.map(({ ean, reason }) => `${ean === '' ? '""' : ean} (${reason})`).join(', ');
  return new Problem('invalid-ean', `invalid EAN code${invalid.length === 1 ? '' : 's'}: ${named}`, {
    invalidEans: invalid,
  });
}

/** Throws invalid-ean (400) when the code is not a valid EAN-8, EAN-13 or GTIN-14. */
export function assertEan(ean: string): void {
  const check = validateEan(ean);
  if (!check.valid) throw invalidEanProblem([{ ean, reason: check.reason }]);
}

/**
 * Parses the `eans` query value: comma-separated (a `%2C` arrives here already decoded), trimmed,
 * empties dropped, duplicates collapsed keeping the first occurrence's position.
 */
export function parseEanList(raw: string | undefined): string[] {
  if (raw === undefined)
    throw new Problem('validation-failed', 'eans is required: a comma-separated list of EAN codes');
  const eans = [
    ...new Set(
      raw
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    ),
  ];
  if (eans.length === 0)
    throw new Problem('validation-failed', 'eans must name at least one EAN code (comma-separated)');
  if (eans.length > MAX_EANS_PER_QUERY) {
    throw new Problem(
      'validation-failed',
      `eans names ${eans.length} distinct codes; at most ${MAX_EANS_PER_QUERY} per request`,
    );
  }
  const invalid: InvalidEan[] = [];
  for (const ean of eans) {
    const check = validateEan(ean);
    if (!check.valid) invalid.push({ ean, reason: check.reason });
  }
  if (invalid.length > 0) throw invalidEanProblem(invalid);
  return eans;
}
