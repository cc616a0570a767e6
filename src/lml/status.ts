/**
 * List statuses and the one table of allowed status changes. The status set is open-ended in the
 * seed; Shelfmark uses the four the real system shows, and accepts `concept` (the real system's word)
 * as a synonym of `created` on input. Output always says `created`.
 */

import type { ListRow } from '../db/schema.js';
import { Problem } from '../problems/catalogue.js';
import { LIST_STATUSES, type ListStatus } from '../vocabulary/list-statuses.js';

export { LIST_STATUSES, type ListStatus };

/** Every word accepted on input (request bodies and query filters). */
export const LIST_STATUS_INPUTS = [...LIST_STATUSES, 'concept'] as const;

/**
 * Allowed changes, from → to:
 * - created   → validated (checked by an editor), published (operators may skip validation),
 *               archived (a draft that will never be used)
 * - validated → published, created (back to editing after a rejected check)
 * - published → archived (end of the school year), validated (unpublished for a correction)
 * - archived  → created (revived as a concept for a new year; it must be published again)
 * Moving to the status a list already has is not a transition: the service answers 200 with the list
 * unchanged and emits no event, so a retried request is harmless.
 */
export const TRANSITIONS: Readonly<Record<ListStatus, readonly ListStatus[]>> = {
  created: ['validated', 'published', 'archived'],
  validated: ['published', 'created'],
  published: ['archived', 'validated'],
  archived: ['created'],
};

export function isListStatus(value: string): value is ListStatus {
  return (LIST_STATUSES as readonly string[]).includes(value);
}

/** The canonical status for an input word (`concept` → `created`), or undefined when unknown. */
export function canonicalStatus(value: string): ListStatus | undefined {
  const word = value.trim().toLowerCase();
  if (word === 'concept') return 'created';
  return isListStatus(word) ? word : undefined;
}

/** Throws 409 illegal-transition naming the allowed targets unless from → to is in the table. */
export function assertTransition(from: ListStatus, to: ListStatus): void {
  const allowed = TRANSITIONS[from];
  if (allowed.includes(to)) return;
  throw new Problem(
    'illegal-transition',
    `the list is ${from} and cannot become ${to}; allowed: ${allowed.join(', ')}`,
    {
      from,
      to,
      allowed: [...allowed],
    },
  );
}

/** A stored row's status; a word this version does not know is a corrupt row, not bad input. */
export function storedStatus(row: Pick<ListRow, 'identifier' | 'status'>): ListStatus {
  if (isListStatus(row.status)) return row.status;
  throw new Error(`list ${row.identifier} has an unknown stored status ${row.status}`);
}
