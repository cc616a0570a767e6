/**
 * Which offer events a change announces, decided from the row before and after, so the
 * admin API and the CSV import emit exactly alike:
 * - `offer.published` whenever an offer becomes published;
 * - `offer.status` (type = the new status) on every status change of an offer that is or was
 *   published (`published_at` remembers the first publication; a draft's withdrawal is nobody's business;
 *   a once-published offer put back to draft is announced as withdrawn, unless it already was);
 * - `offer.updated` when a published offer stays published and a public field (price, condition,
 *   remarks: every column the public shape reads) changes.
 * Each event carries the offer's EAN, which subscription filters match on; the payload does not.
 */
import type { OfferRow } from '../db/schema.js';
import type { DomainEvent, EventType } from '../events/catalogue.js';
import { events } from '../events/emitters.js';
import { isStatus } from './model.js';
import { PUBLIC_OFFER_COLUMNS } from './schemas.js';

/** The columns a buyer sees, but the id (a new offer has none yet; it never changes). */
type PublicColumn = Exclude<(typeof PUBLIC_OFFER_COLUMNS)[number], 'id'>;
const PUBLIC_COLUMNS = PUBLIC_OFFER_COLUMNS.filter((column): column is PublicColumn => column !== 'id');

/** What the rules read of a row. */
export type OfferState = Pick<OfferRow, 'identifier' | 'ean' | 'status' | 'published_at' | PublicColumn>;

/** `published_at` after a change to `status` at `now`: set on the first publication, then kept. */
export function publishedAt(before: Pick<OfferRow, 'published_at'> | undefined, status: string, now: number) {
  return before?.published_at ?? (status === 'published' ? now : null);
}

/** The status buyers are told: an offer put back to draft is, to them, withdrawn (draft is never announced). */
function announced(status: string): EventType<'offer.status'> {
  if (!isStatus(status)) throw new Error(`an offer has the unknown stored status ${status}`);
  return status === 'draft' ? 'withdrawn' : status;
}

/** The events of one change; `before` undefined for a new offer, `after` undefined for a deleted one. */
export function offerEvents(before: OfferState | undefined, after: OfferState | undefined): DomainEvent[] {
  if (after === undefined) {
    // Deleting an offer buyers could see (or once saw) ends its life like a withdrawal.
    if (before === undefined || before.published_at === null || before.status === 'withdrawn') return [];
    return [events.offerStatus(before, 'withdrawn')];
  }
  const wasPublished = before?.published_at != null;
  if (before === undefined || before.status !== after.status) {
    if (after.status === 'published') return [events.offerPublished(after), events.offerStatus(after, 'published')];
    const type = announced(after.status);
    return wasPublished && type !== announced(before?.status ?? 'draft') ? [events.offerStatus(after, type)] : [];
  }
  if (after.status !== 'published') return [];
  const changed = PUBLIC_COLUMNS.some((column) => before[column] !== after[column]);
  return changed ? [events.offerUpdated(after)] : [];
}
