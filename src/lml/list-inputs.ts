/**
 * What a list service call takes (input, patch, query) and the rules that read it: a school year's
 * bounds, and the canonical form that decides whether content changed.
 */

import type { PageQuery } from '../vocabulary/paging.js';
import { fieldProblem } from './input.js';
import type { ListItemInput } from './items.js';
import type { ListView } from './schemas.js';
import { parseItems, parseTags } from './views.js';

export interface ListInput {
  school: string;
  name: string;
  comment?: string | null | undefined;
  schoolYear?: number | null | undefined;
  duoCode?: string | null | undefined;
  tags?: string[] | undefined;
  imported?: boolean | undefined;
  items?: ListItemInput[] | undefined;
}

/** The content an operator may change; the school, slug and status are not content. */
export type ListPatch = Partial<Omit<ListInput, 'school' | 'imported'>>;

/** What an update did: the list as it now is, and whether its content changed (then list.updated was emitted). */
export type ListUpdate = { list: ListView; changed: boolean };

export interface ListQuery extends PageQuery {
  school?: string | undefined;
  /** Any accepted status word; without it archived lists are left out. */
  status?: string | undefined;
}

// Compared in parsed-and-reserialised form so that equal content never counts as a change.
export const canonicalTags = (json: string): string => JSON.stringify(parseTags(json));
export const canonicalItems = (json: string): string => JSON.stringify(parseItems(json));

/** The start year of the school year, e.g. 2026 for 2026-2027. */
export function schoolYear(value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 1900 || value > 2200)
    throw fieldProblem('/schoolYear', 'must be a start year between 1900 and 2200');
  return value;
}
