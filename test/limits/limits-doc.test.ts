import { describe, expect, it } from 'vitest';
import { limitsTable, withLimitsTable } from '../../docs-tools/limits-table.js';
import { InvalidRequest, TooManyAttempts } from '../../src/auth/oauth-errors.js';
import { LIMIT_FIELDS } from '../../src/config/limit-fields.js';
import { amountOf, LIMITS } from '../../src/limits/catalogue.js';
import { itHoldsTheRenderedTable } from '../support/docs-table.js';

const cells = (row: string | undefined) => row?.split('|').map((cell) => cell.trim());

describe('limits: one catalogue', () => {
  itHoldsTheRenderedTable('docs/operating/limits.md', 'the limits catalogue', withLimitsTable, 'docs:limits');

  it('gives every limit of the configuration a row', () => {
    const named = new Set(LIMITS.flatMap((entry) => entry.amounts.flatMap((a) => ('setting' in a ? [a.setting] : []))));
    expect(Object.keys(LIMIT_FIELDS).filter((key) => !named.has(key as never))).toEqual([]);
  });

  it('shows a setting by its variable and default, a fixed limit by its constant, an answer by its status', () => {
    const rows = limitsTable().split('\n').slice(2);
    expect(rows).toHaveLength(LIMITS.length);
    const byLimit = new Map(rows.map((row) => [cells(row)?.[1], cells(row)]));
    expect(byLimit.get('JSON body')).toEqual([
      '',
      'JSON body',
      '`BODY_LIMIT_BYTES` = 256 KiB',
      'request',
      '`413` `body-too-large`',
      '',
    ]);
    expect(byLimit.get('EANs per offers call')?.[2]).toBe('100 distinct (fixed, part of the API contract)');
    expect(byLimit.get('requests per client (token bucket, bearer-guarded `/api/v1`, `/api/lml/v1`)')?.[2]).toBe(
      '`RATE_LIMIT_RATE` = 100 /s, `RATE_LIMIT_BURST` = 2 × `RATE_LIMIT_RATE` (at least 1)',
    );
  });

  it("states the token endpoint's refusals as its error classes answer them", () => {
    const oauth = LIMITS.flatMap((entry) => ('oauth' in entry.answer ? [entry.answer] : []));
    const classes = [new TooManyAttempts(1), new InvalidRequest('')];
    expect(oauth.length).toBeGreaterThan(0);
    for (const answer of oauth) {
      expect(classes.map((refusal) => [refusal.code, refusal.status])).toContainEqual([answer.oauth, answer.status]);
    }
  });

  it('reads byte and second counts in the largest unit that divides them', () => {
    expect([amountOf(256 * 1024, 'bytes'), amountOf(64 * 1024 * 1024, 'bytes'), amountOf(1500, 'bytes')]).toEqual([
      '256 KiB',
      '64 MiB',
      '1500 bytes',
    ]);
    expect([amountOf(600, 'seconds'), amountOf(7200, 'seconds'), amountOf(90, 'seconds')]).toEqual([
      '10 min',
      '2 h',
      '90 s',
    ]);
  });
});
