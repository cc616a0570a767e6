/**
 * The event feed (GET /api/lml/v1/events): pull instead of push. `list()` reads one page; `stream()`
 * follows the feed for as long as the caller wants, long-polling while nothing is new, resuming from
 * the last cursor after an error, and handing each cursor to `onCursor` so the caller can persist it
 * and continue there after a restart.
 */
import { ApiError } from './errors.js';
import { abortableSleep, type CallOptions } from './transport.js';
import type { QueryOf, ResponseBody } from './types.js';

export type FeedPage = ResponseBody<'/api/lml/v1/events', 'get'>;
/** One event: the webhook body plus `id` (the x-hook-event-id of its deliveries), `event`, `occurredAt`, `cursor`. */
export type FeedEvent = FeedPage['data'][number];
export type FeedQuery = QueryOf<'/api/lml/v1/events', 'get'>;

export interface StreamOptions {
  /** Continue after this cursor (an event's `cursor` or a page's `next`); from the feed's start without it. */
  after?: string;
  /** Event names, either spelling; every event the token may see without them. */
  types?: readonly string[];
  /** Stops the stream (the iterator then ends). */
  signal?: AbortSignal;
  /** Called with the cursor after each event and after each empty page: persist it to resume there. */
  onCursor?: (cursor: string) => void | Promise<void>;
  /** Seconds a request waits for a new event (default 25, at most 30). */
  waitSeconds?: number;
  /** Events per page (default 100). */
  limit?: number;
  /** Pause after a failed request before trying again, in ms (default 1000, doubling up to 30 s). */
  retryDelayMs?: number;
}

type Get = (query: FeedQuery, options?: CallOptions) => Promise<FeedPage>;

/** The retriable failures: everything but a refusal the caller must act on (a bad cursor, a scope, a 410). */
const fatal = (error: unknown): boolean =>
  error instanceof ApiError &&
  error.status >= 400 &&
  error.status < 500 &&
  error.status !== 429 &&
  error.status !== 408;

export function eventsApi(get: Get) {
  return {
    /** One page of the feed: `{ data, has_more, next }`; ask again with `after: next`. */
    list: (query: FeedQuery = {}, options?: CallOptions): Promise<FeedPage> => get(query, options),

    /**
     * Every event from `after` on, in commit order, without end: `for await (const event of
     * client.events.stream({ after, onCursor }))`. A 410 (cursor older than the retention) or another
     * refusal ends the iterator with its ApiError; network failures and 5xx are retried.
     */
    stream: async function* stream(options: StreamOptions = {}): AsyncGenerator<FeedEvent, void, undefined> {
      const wait = Math.min(30, Math.max(0, options.waitSeconds ?? 25));
      let after = options.after;
      let delay = options.retryDelayMs ?? 1000;
      const types = options.types === undefined ? undefined : options.types.join(',');
      const stopped = (): boolean => options.signal?.aborted === true;
      while (!stopped()) {
        let page: FeedPage;
        try {
          page = await get(
            {
              ...(after === undefined ? {} : { after }),
              ...(types === undefined ? {} : { types }),
              limit: options.limit ?? 100,
              wait,
            },
            // The server holds the request up to `wait` seconds: give it that and some.
            { timeoutMs: (wait + 15) * 1000, ...(options.signal === undefined ? {} : { signal: options.signal }) },
          );
          delay = options.retryDelayMs ?? 1000;
        } catch (error) {
          if (stopped()) return;
          if (fatal(error)) throw error;
          await abortableSleep(delay, options.signal).catch(() => undefined);
          delay = Math.min(delay * 2, 30_000);
          continue;
        }
        for (const event of page.data) {
          yield event;
          after = event.cursor;
          await options.onCursor?.(event.cursor);
        }
        if (page.next !== after) {
          after = page.next;
          await options.onCursor?.(page.next);
        }
      }
    },
  };
}
