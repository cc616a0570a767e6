/**
 * The README's sample answer of the offers call shows every field an offer has, in the
 * order the API writes them (identifier included: the one offer events carry).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { PublicOfferSchema } from '../../src/offers/schemas.js';

const ROOT = resolve(import.meta.dirname, '../..');

it("the README's sample offer has the API's fields, identifier included", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const sample = /^# \[(\{"id":.*?\}), \.\.\.\]$/m.exec(readme)?.[1];
  expect(sample, 'a "# [{"id":…}, ...]" sample line after the offers call').toBeDefined();
  const offer = JSON.parse(sample ?? '{}') as Record<string, unknown>;
  expect(Object.keys(offer)).toEqual(Object.keys(PublicOfferSchema.properties));
  expect(offer.identifier).toMatch(/^[0-9a-f]{32}$/);
});
