/**
 * Replay into a subscription: deliveries for the past events it matches, queued in feed
 * order through the normal delivery path (signed and retried like any other), at most
 * MAX_REPLAY_EVENTS per replay. For a new subscription (`replayFrom` at creation) the seam with live
 * deliveries has no gap and no duplicate: the replay first waits for every fan-out in progress
 * (events/fan-out-fence.ts), then reads the feed up to its head, leaving out what the subscription
 * already has pending or received live.
 */

import type { Initiator } from '../audit/initiator.js';
import type { UnitOfWork } from '../changes/unit-of-work.js';
import { isoTime } from '../clock.js';
import type { Db } from '../db/database.js';
import { canonicalEvent } from '../events/catalogue.js';
import { DELIVERIES_CHANNEL } from '../events/channels.js';
import { awaitFanOuts } from '../events/fan-out-fence.js';
import { CURSOR_PATTERN, decodeCursor } from '../events/feed-cursor.js';
import { FeedStore } from '../events/feed-store.js';
import { clientRevoked, notFound, Problem } from '../problems/catalogue.js';
import { checkFilter } from './filter.js';
import type { SubscriptionFilter } from './filter-schema.js';
import { type ReplayMatch, type ReplayStart, ReplayStore } from './replay-store.js';

export const MAX_REPLAY_EVENTS = 10_000;

export interface ReplayOutcome {
  /** Deliveries queued. */
  queued: number;
  /** The feed position the replay read up to: later events reach the subscription live. */
  upTo: number;
}

const ISO_TIME_START = /^\d{4}-\d{2}-\d{2}T/;

/**
 * `replayFrom` / `from` as the API document states it: an ISO 8601 time (RFC 3339, with its zone) or a
 * cursor of the event feed. parseReplayStart checks it, with an answer that names both.
 */
export const REPLAY_START_RULE = {
  anyOf: [
    {
      format: 'date-time',
      pattern: `${ISO_TIME_START.source}\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2})$`,
    },
    { pattern: CURSOR_PATTERN },
  ],
} as const;

/** `replayFrom` / `from`: an ISO time or a feed cursor. A 400 when it is neither. */
export function parseReplayStart(value: string, path: string): ReplayStart {
  const cursor = decodeCursor(value);
  if (cursor !== undefined) return { after: cursor.position };
  const time = ISO_TIME_START.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(time)) return { since: time };
  const detail = `${path.slice(1)} must be an ISO 8601 time (e.g. 2026-09-01T00:00:00Z) or a cursor of the event feed`;
  throw new Problem('validation-failed', detail, { errors: [{ location: 'body', path, message: detail }] });
}

export class SubscriptionReplay {
  private readonly store: ReplayStore;
  private readonly feed: FeedStore;

  constructor(
    private readonly db: Db,
    /** Wakes this process's delivery workers (other nodes: the NOTIFY of the replay's commit). */
    private readonly wakeWorkers: () => void,
    /** A replay is one change, its audit record with it. */
    private readonly work: UnitOfWork,
  ) {
    this.store = new ReplayStore(db.kysely, db.dialect);
    this.feed = new FeedStore(db.kysely, db.dialect);
  }

  /**
   * Before a subscription with `replayFrom` is created: the 422 when its replay would exceed the bound.
   * An unknown event or a bad filter is left to the creation, which answers it.
   */
  async checkBound(
    clientRef: string,
    input: { event: string; filter?: SubscriptionFilter | undefined },
    start: ReplayStart,
  ): Promise<void> {
    const event = canonicalEvent(input.event);
    if (event === undefined) return;
    const filter = await checkFilter(this.db.kysely, event, input.filter);
    const match: ReplayMatch = { event, clientRef, subscriptionId: undefined, eans: filter.eans, list: filter.list };
    await this.bound(match, start, await this.feed.head());
  }

  /**
   * Replays into one of the client's subscriptions (404 for another client's; the operator, who names
   * no client, into any). `created`: it was made
   * by this request, so every delivery it has is a live one and is left out; otherwise only those still
   * pending are (a receiver that asks again for delivered events gets them again).
   */
  async replay(
    clientRef: string | undefined,
    subscriptionId: string,
    start: ReplayStart,
    by: Initiator,
    created = false,
  ): Promise<ReplayOutcome> {
    const match = await this.store.matchOf(clientRef, subscriptionId);
    if (match === undefined) throw notFound(`subscription ${subscriptionId}`);
    if (match.status === 'revoked') throw clientRevoked(`subscription ${subscriptionId}`);
    // Every fan-out that read the subscriptions before this one existed has committed after this.
    await awaitFanOuts(this.db);
    const upTo = await this.feed.head();
    await this.bound(match, start, upTo);
    const queued = await this.work.run(by, async ({ trx, now, record }) => {
      const count = await this.store.queue(
        trx,
        { ...match, subscriptionId },
        start,
        upTo,
        created ? 'with-delivery' : 'with-pending-delivery',
        now,
      );
      if (count === 0) return count;
      await this.db.dialect.notify(trx, DELIVERIES_CHANNEL, '');
      record('subscription.replayed', subscriptionId, {
        queued: { before: null, after: count },
        from: { before: null, after: 'since' in start ? isoTime(start.since) : `position ${start.after}` },
      });
      return count;
    });
    if (queued > 0) this.wakeWorkers();
    return { queued, upTo };
  }

  private async bound(match: ReplayMatch, start: ReplayStart, upTo: number): Promise<void> {
    const count = await this.store.count(match, start, upTo, MAX_REPLAY_EVENTS);
    if (count > MAX_REPLAY_EVENTS)
      throw new Problem(
        'replay-too-large',
        `more than ${MAX_REPLAY_EVENTS} past events match${'since' in start ? ` since ${isoTime(start.since)}` : ''}; a replay queues at most ${MAX_REPLAY_EVENTS}: replay from a later time or cursor`,
        { limit: MAX_REPLAY_EVENTS },
      );
  }
}
