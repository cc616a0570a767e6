/**
 * Pages of the feed, serialised once and shared. A page is the events of a filter in a range of
 * positions (after, upTo], and positions up to the head are final (feed-sequence.ts), so the same
 * page asked again, by many readers polling the same place or by the long-poll waiters that one event
 * wakes together, is one query and one serialisation. Kept briefly (a pruned event or a deleted
 * subscription's operational events leave within that time) and few (the newest pages are asked for).
 */
import { hash } from 'node:crypto';
import { isoTime } from '../clock.js';
import { encodeCursor } from './feed-cursor.js';
import type { FeedFilter, FeedRow, FeedStore } from './feed-store.js';

/** One page's items as JSON text, with what the answer around them needs. */
export interface PageSlice {
  /** The items, a JSON array. */
  readonly json: string;
  /** A short hash of `json`, for the answer's ETag. */
  readonly tag: string;
  readonly count: number;
  /** More events than the page holds lie in the range. */
  readonly hasMore: boolean;
  /** The page's last event. */
  readonly last: { readonly seq: number; readonly createdAt: number } | undefined;
}

/** Which events a reader asked for, worked out once per question (feed.ts) and the same object each time. */
export interface FeedSelection extends Omit<FeedFilter, 'clientRef'> {
  /** Unique per selection in this process: a short stand-in for the names in a page's key. */
  readonly id: number;
  /** Operational events are among the names: pages are per client (`clientRef`). */
  readonly own: boolean;
  readonly clientRef?: string;
}

const KEPT_MS = 5000;
const MAX_PAGES = 256;

export class FeedPages {
  private readonly pages = new Map<string, { at: number; slice: Promise<PageSlice> }>();

  constructor(
    private readonly store: FeedStore,
    private readonly now: () => number = () => performance.now(),
  ) {}

  read(after: number, upTo: number, selection: FeedSelection, limit: number): Promise<PageSlice> {
    const filter: FeedFilter = { names: selection.names, clientRef: selection.clientRef ?? '' };
    const key = `${after} ${upTo} ${limit} ${filter.clientRef} ${selection.id}`;
    const now = this.now();
    const kept = this.pages.get(key);
    if (kept !== undefined && now - kept.at < KEPT_MS) return kept.slice;
    const slice = this.store.page(after, upTo, filter, limit + 1).then((rows) => sliceOf(rows, limit));
    // A failed read is not kept.
    slice.catch(() => this.pages.delete(key));
    this.pages.delete(key);
    this.pages.set(key, { at: now, slice });
    if (this.pages.size > MAX_PAGES) {
      const oldest = this.pages.keys().next();
      if (oldest.done !== true) this.pages.delete(oldest.value);
    }
    return slice;
  }
}

function sliceOf(rows: FeedRow[], limit: number): PageSlice {
  const shown = rows.slice(0, limit);
  const json = JSON.stringify(shown.map(item));
  const last = shown.at(-1);
  return {
    json,
    tag: hash('sha1', json, 'base64url'),
    count: shown.length,
    hasMore: rows.length > limit,
    last: last === undefined ? undefined : { seq: last.seq, createdAt: last.created_at },
  };
}

/** The webhook body plus id, event, occurredAt and cursor, in the documented order. */
function item(row: FeedRow) {
  const body = JSON.parse(row.payload) as { type: string; resource: string; identifier: string };
  return {
    type: body.type,
    resource: body.resource,
    identifier: body.identifier,
    id: row.id,
    event: row.name,
    occurredAt: isoTime(row.created_at),
    cursor: encodeCursor({ position: row.seq, asOf: row.created_at }),
  };
}
