import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/problems/catalogue.js';
import {
  assertEan,
  eanCheckDigit,
  isValidEan,
  MAX_EANS_PER_QUERY,
  parseEanList,
  validateEan,
} from '../../src/vocabulary/ean.js';
import { eanOf } from '../support/ean.js';

function problemOf(run: () => unknown): Problem {
  try {
    run();
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('expected a Problem');
}

describe('validateEan', () => {
  it.each([
    ['96385074', 'EAN-8'],
    ['40170725', 'EAN-8'],
    ['4006381333931', 'EAN-13'],
    ['9780306406157', 'EAN-13'], // ISBN 978-0-306-40615-7
    ['9789001891442', 'EAN-13'],
    ['9798885123044', 'EAN-13'], // 979 prefix
    ['10012345000017', 'GTIN-14'],
    ['04006381333931', 'GTIN-14'], // an EAN-13 padded to 14 digits keeps its check digit
  ])('%s is a valid %s', (ean, kind) => {
    expect(validateEan(ean)).toEqual({ valid: true, kind });
    expect(isValidEan(ean)).toBe(true);
  });

  it.each([
    ['9780306406158', 'check digit should be 7'],
    ['96385075', 'check digit should be 4'],
    ['10012345000010', 'check digit should be 7'],
    ['4006381333930', 'check digit should be 1'],
    ['978030640615', 'not 8, 13 or 14 digits'], // 12 digits (UPC-A length) is not accepted
    ['1234567', 'not 8, 13 or 14 digits'],
    ['978030640615700', 'not 8, 13 or 14 digits'],
    ['97803064061X7', 'contains characters other than digits'],
    ['978-0306406157', 'contains characters other than digits'],
    ['abcdefgh', 'contains characters other than digits'],
    ['９７８０３０６４０６１５７', 'contains characters other than digits'], // full-width digits
    ['', 'is empty'],
  ])('%s is invalid: %s', (ean, reason) => {
    expect(validateEan(ean)).toEqual({ valid: false, reason });
    expect(isValidEan(ean)).toBe(false);
  });

  it('computes check digits with weights 3 and 1 from the right', () => {
    expect(eanCheckDigit('978030640615')).toBe(7);
    expect(eanCheckDigit('9638507')).toBe(4);
    expect(eanCheckDigit('1001234500001')).toBe(7);
    expect(eanCheckDigit('000000000000')).toBe(0);
  });

  it('assertEan throws invalid-ean naming the code', () => {
    const problem = problemOf(() => assertEan('9780306406158'));
    expect(problem.code).toBe('invalid-ean');
    expect(problem.detail).toBe('invalid EAN code: 9780306406158 (check digit should be 7)');
    expect(problem.extensions).toEqual({ invalidEans: [{ ean: '9780306406158', reason: 'check digit should be 7' }] });
    expect(() => assertEan('9780306406157')).not.toThrow();
  });
});

describe('parseEanList', () => {
  it('splits, trims, drops empties and collapses duplicates keeping first positions', () => {
    expect(parseEanList(' 9789001891442 ,,9780306406157,9789001891442, 96385074,')).toEqual([
      '9789001891442',
      '9780306406157',
      '96385074',
    ]);
  });

  it('rejects a missing or empty list', () => {
    expect(problemOf(() => parseEanList(undefined)).code).toBe('validation-failed');
    const empty = problemOf(() => parseEanList(' , ,'));
    expect(empty.code).toBe('validation-failed');
    expect(empty.detail).toBe('eans must name at least one EAN code (comma-separated)');
  });

  it('names every invalid code, and only those', () => {
    const problem = problemOf(() => parseEanList('9780306406157,123,9780306406158,123'));
    expect(problem.code).toBe('invalid-ean');
    expect(problem.detail).toBe(
      'invalid EAN codes: 123 (not 8, 13 or 14 digits), 9780306406158 (check digit should be 7)',
    );
    expect(problem.extensions).toEqual({
      invalidEans: [
        { ean: '123', reason: 'not 8, 13 or 14 digits' },
        { ean: '9780306406158', reason: 'check digit should be 7' },
      ],
    });
  });

  it(`accepts ${MAX_EANS_PER_QUERY} distinct codes and refuses one more`, () => {
    const codes = Array.from({ length: MAX_EANS_PER_QUERY + 1 }, (_, i) => eanOf(i));
    expect(parseEanList(codes.slice(0, MAX_EANS_PER_QUERY).join(','))).toHaveLength(MAX_EANS_PER_QUERY);
    const problem = problemOf(() => parseEanList(codes.join(',')));
    expect(problem.code).toBe('validation-failed');
    expect(problem.detail).toBe('eans names 101 distinct codes; at most 100 per request');
  });
});
