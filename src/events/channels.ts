/** PostgreSQL NOTIFY channels of the outbox and the event feed. */

/** Committed deliveries wake the delivery workers of every node (the feed's waiters listen too). */
export const DELIVERIES_CHANNEL = 'shelfmark_deliveries';

/**
 * Commits that recorded events but no delivery, and the feed sequencer's stamps: the feed's waiters of
 * every node listen. A writing transaction notifies once, on one of the two channels, so the delivery
 * path pays nothing new.
 */
export const EVENTS_CHANNEL = 'shelfmark_events';
