/**
 * Normalisation of a list's items and tags. Items are stored with every key present in a fixed
 * order, so the stored JSON is canonical and "did the content change?" is a string comparison.
 */

import { Problem } from '../problems/catalogue.js';
import { validateEan } from '../vocabulary/ean.js';
import { fieldProblem, optionalText, requiredText } from './input.js';
import { MAX_ITEMS, MAX_TAGS } from './model.js';
import type { ListItem } from './schemas.js';

export interface ListItemInput {
  ean: string;
  title: string;
  author?: string | null | undefined;
  publisher?: string | null | undefined;
  /** Defaults to true: a list prescribes its books unless marked optional. */
  mandatory?: boolean | undefined;
  remarks?: string | null | undefined;
}

export function normaliseItems(input: readonly ListItemInput[]): ListItem[] {
  if (input.length > MAX_ITEMS)
    throw fieldProblem('/items', `must not have more than ${MAX_ITEMS} items (got ${input.length})`);
  const errors: { location: string; path: string; message: string }[] = [];
  const invalidEans: { ean: string; reason: string }[] = [];
  const seen = new Map<string, number>();
  const items = input.map((item, index): ListItem => {
    const ean = item.ean.trim();
    const check = validateEan(ean);
    if (!check.valid) {
      errors.push({
        location: 'body',
        path: `/items/${index}/ean`,
        message: `${ean === '' ? '""' : ean}: ${check.reason}`,
      });
      invalidEans.push({ ean, reason: check.reason });
    } else if (seen.has(ean)) {
      errors.push({
        location: 'body',
        path: `/items/${index}/ean`,
        message: `${ean} is already item ${seen.get(ean)}`,
      });
    } else {
      seen.set(ean, index);
    }
    return {
      ean,
      title: requiredText(item.title, `items/${index}/title`),
      author: optionalText(item.author),
      publisher: optionalText(item.publisher),
      mandatory: item.mandatory ?? true,
      remarks: optionalText(item.remarks),
    };
  });
  if (invalidEans.length > 0) {
    const named = errors.map((error) => `${error.path.slice(1)} ${error.message}`).join('; ');
    throw new Problem('invalid-ean', `invalid item EAN: ${named}`, { errors, invalidEans });
  }
  if (errors.length > 0) {
    throw new Problem(
      'validation-failed',
      `a list names each EAN once: ${errors.map((error) => `${error.path.slice(1)} ${error.message}`).join('; ')}`,
      { errors },
    );
  }
  return items;
}

/** Trimmed, non-blank tag names: the levels of the structure tree between the school and the list. */
export function normaliseTags(input: readonly string[]): string[] {
  if (input.length > MAX_TAGS) throw fieldProblem('/tags', `must not have more than ${MAX_TAGS} tags`);
  return input.map((tag, index) => requiredText(tag, `tags/${index}`));
}
