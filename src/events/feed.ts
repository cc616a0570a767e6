/**
 * The event feed (GET /api/lml/v1/events): the events a client may see, oldest first in commit order,
 * a page at a time, optionally held open until one arrives (long-poll). Rules here; SQL in
 * feed-store.ts; waiting in feed-waiters.ts; the order's reasoning in docs/architecture.md.
 */

import { hash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import { Problem } from '../problems/catalogue.js';
import { ACCEPTED_EVENT_SPELLINGS, canonicalEvent, EVENT_NAMES, EVENTS, type EventName } from './catalogue.js';
import { decodeCursor, encodeCursor, FEED_START, type FeedCursor } from './feed-cursor.js';
import { FeedPages, type FeedSelection, type PageSlice } from './feed-pages.js';
import type { FeedStore } from './feed-store.js';
import type { FeedWaiters } from './feed-waiters.js';

const DAY_MS = 86_400_000;
export const DEFAULT_FEED_PAGE = 100;
export const MAX_FEED_PAGE = 1000;
export const MAX_FEED_WAIT_SECONDS = 30;
/**
 * A reader may start from the head this node read this long ago if no commit was announced since:
 * an event written outside the outbox (no announcement) shows at most this much later.
 */
const HEAD_FRESH_MS = 250;

/** Who reads: the client and the scopes of its token. */
export interface FeedReader {
  clientId: string;
  clientRef: string;
  scopes: readonly string[];
}

export interface FeedQuery {
  after?: string | undefined;
  limit: number;
  types?: string | undefined;
  /** Seconds to hold the request open while nothing is new (0: answer at once). */
  wait: number;
}

export interface FeedItem {
  type: string;
  resource: string;
  identifier: string;
  id: string;
  event: string;
  occurredAt: string;
  cursor: string;
}

export interface FeedPage {
  data: FeedItem[];
  has_more: boolean;
  next: string;
}

/** A page as sent: its JSON (a FeedPage) as UTF-8 bytes, and its strong ETag. */
export interface FeedAnswer {
  body: Buffer;
  etag: string;
}

/** The scope an event needs; operational events need none beyond the route's (they are the client's own). */
export function scopeOf(name: EventName): 'lml:read' | 'offers:read' | undefined {
  const resource = EVENTS[name].resource;
  return resource === 'offer' ? 'offers:read' : resource === 'subscription' ? undefined : 'lml:read';
}

function invalidQuery(path: string, detail: string, extra: Record<string, unknown> = {}): Problem {
  return new Problem('validation-failed', detail, {
    ...extra,
    errors: [{ location: 'querystring', path, message: detail }],
  });
}

/** The event names this reader asked for (either spelling), each allowed by its token's scopes. */
export function namesFor(reader: FeedReader, types: string | undefined): EventName[] {
  const allowed = (name: EventName): boolean => {
    const scope = scopeOf(name);
    return scope === undefined || reader.scopes.includes(scope);
  };
  if (types === undefined || types.trim() === '') return EVENT_NAMES.filter(allowed);
  const names: EventName[] = [];
  for (const given of types.split(',')) {
    const name = canonicalEvent(given);
    if (name === undefined)
      throw invalidQuery(
        '/types',
        `types: "${given.trim().slice(0, 100)}" is not an event; use ${ACCEPTED_EVENT_SPELLINGS.join(', ')}`,
        { acceptedEvents: ACCEPTED_EVENT_SPELLINGS },
      );
    const scope = scopeOf(name);
    if (!allowed(name) && scope !== undefined)
      throw new Problem('insufficient-scope', `${name} events need the scope ${scope}`, { requiredScope: scope });
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** At most this many (scopes, types) questions are remembered per node. */
const MAX_SELECTIONS = 1000;

export class EventFeed {
  constructor(
    private readonly store: FeedStore,
    private readonly waiters: FeedWaiters,
    private readonly clock: Clock,
    /** Days an event is kept (0: forever): a cursor older than that may have lost events after it. */
    private readonly retentionDays: () => number,
  ) {
    this.pages = new FeedPages(store);
  }

  private readonly pages: FeedPages;
  /** What a (scopes, types) pair selects, worked out once: readers ask the same question again and again. */
  private readonly selections = new Map<string, FeedSelection>();
  private nextSelectionId = 1;
  /**
   * The last answer made of each kept page, with the position and time its `next` names: readers
   * polling the same place get the same bytes, encoded once: a body built per request is a
   * concatenated string that Node measures and encodes again for every answer
   * (docs/performance.md#decisions).
   */
  private readonly answers = new WeakMap<PageSlice, FeedAnswer & { upTo: number; asOf: number }>();

  /** The page as JSON text (`{ data, has_more, next }`) with its strong ETag. */
  async page(reader: FeedReader, query: FeedQuery, signal?: AbortSignal): Promise<FeedAnswer> {
    const selection = this.selection(reader, query.types);
    const cursor = query.after === undefined ? undefined : await this.cursor(query.after);
    const from = cursor?.position ?? FEED_START;
    const leave = query.wait > 0 ? this.waiters.enter(reader.clientId) : undefined;
    try {
      const deadline = Date.now() + Math.min(query.wait, MAX_FEED_WAIT_SECONDS) * 1000;
      let upTo = await this.waiters.currentHead(HEAD_FRESH_MS);
      for (;;) {
        const slice = await this.pages.read(from, upTo, selection, query.limit);
        const left = deadline - Date.now();
        const seen = Math.max(from, upTo);
        if (slice.count > 0 || left <= 0) return this.answer(slice, seen, cursor);
        const outcome = await this.waiters.wait(seen, left, signal);
        if (outcome !== 'moved') return this.answer(slice, seen, cursor);
        // Woken because this node read a newer head: read up to it (no look-up of our own).
        const latest = this.waiters.latest;
        upTo = latest !== undefined && latest > upTo ? latest : await this.waiters.currentHead(0);
      }
    } finally {
      leave?.();
    }
  }

  private selection(reader: FeedReader, types: string | undefined): FeedSelection {
    const own = (names: readonly EventName[]): boolean =>
      names.some((name) => EVENTS[name].resource === 'subscription');
    const asked = `${reader.scopes.join(' ')}|${types ?? ''}`;
    let selection = this.selections.get(asked);
    if (selection === undefined) {
      // Throws for a bad `types` (nothing kept). Bounded whoever sends what: the oldest question goes first.
      const names = namesFor(reader, types);
      selection = { names, id: this.nextSelectionId++, own: own(names) };
      if (this.selections.size >= MAX_SELECTIONS) this.selections.delete(this.selections.keys().next().value as string);
      this.selections.set(asked, selection);
    }
    // Operational events are each client's own: its pages are its own too.
    return selection.own ? { ...selection, clientRef: reader.clientRef } : selection;
  }

  /** A cursor from `after`: 400 when it is not one, 410 when it is older than the events kept. */
  private async cursor(after: string): Promise<FeedCursor> {
    const cursor = decodeCursor(after);
    if (cursor === undefined)
      throw invalidQuery('/after', 'after is not a cursor of this feed: pass an item\'s cursor or a page\'s "next"');
    const days = this.retentionDays();
    const now = this.clock.now();
    if (days > 0 && cursor.asOf < now - days * DAY_MS) {
      const oldest = await this.store.oldest();
      throw new Problem(
        'cursor-expired',
        `this cursor is from ${isoTime(cursor.asOf)}, older than the event retention of ${days} days: events after it may have been deleted. ` +
          `The feed now starts at ${oldest === undefined ? 'its next event' : isoTime(oldest)}: read it again without "after", or use "start"`,
        {
          retentionDays: days,
          feedStartsAt: oldest === undefined ? null : isoTime(oldest),
          start: encodeCursor({ position: FEED_START, asOf: now }),
        },
      );
    }
    return cursor;
  }

  private answer(slice: PageSlice, upTo: number, cursor: FeedCursor | undefined): FeedAnswer {
    // A full page continues after its last item; otherwise the reader has seen everything up to the
    // head, which `next` then names, as of the start of today (so a quiet feed's answer, and its
    // ETag, stay the same all day, and a reader that polls a quiet feed never grows stale).
    const now = this.clock.now();
    const last = slice.last;
    const continued = slice.hasMore && last !== undefined;
    const position = continued ? last.seq : upTo;
    const asOf = continued ? last.createdAt : Math.max(now - (now % DAY_MS), last?.createdAt ?? 0, cursor?.asOf ?? 0);
    const made = this.answers.get(slice);
    if (made !== undefined && made.upTo === position && made.asOf === asOf) return made;
    const next = encodeCursor({ position, asOf });
    const answer = {
      upTo: position,
      asOf,
      body: Buffer.from(`{"data":${slice.json},"has_more":${slice.hasMore},"next":"${next}"}`),
      etag: `"${hash('sha1', `${slice.tag} ${next}`, 'base64url')}"`,
    };
    this.answers.set(slice, answer);
    return answer;
  }
}
