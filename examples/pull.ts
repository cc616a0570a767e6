/**
 * Pull instead of push: follows the event feed (GET /api/lml/v1/events) with long-poll, prints each
 * event, and keeps its cursor in a file so a restart continues where it stopped, never missing an event
 * and never handling one twice. For systems without a public HTTPS endpoint.
 *
 *   CURSOR_FILE=./shelfmark.cursor TYPES=list-published,offer.status npx tsx examples/pull.ts
 *
 * The client needs lml:read for school and list events, offers:read for offer events (the demo client
 * has both). A 410 (the cursor is older than the event retention) ends it: read from the feed's start
 * and reconcile with your own records.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { type FeedEvent, type ShelfmarkClient, WebhookDeduplicator } from '@shelfmark/client';
import { clientFromEnv, isMain } from './env.js';

export interface PullOptions {
  /** Where the cursor is kept between runs. */
  cursorFile: string;
  types?: string[];
  signal?: AbortSignal;
  log?: (line: string) => void;
  /**
   * Shared with a webhook receiver, it hands each event over once whichever way it came: feed events'
   * `id` is the x-hook-event-id of their deliveries.
   */
  deduplicator?: WebhookDeduplicator;
}

/** One line per event. */
export const describeFeedEvent = (event: FeedEvent): string =>
  `${event.occurredAt} ${event.event} ${event.resource} ${event.identifier} (event ${event.id})`;

export function readCursor(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
}

/** Written to a temporary file and renamed, so a crash never leaves half a cursor. */
function saveCursor(file: string, cursor: string): void {
  writeFileSync(`${file}.tmp`, cursor);
  renameSync(`${file}.tmp`, file);
}

/** Follows the feed until `signal` aborts; answers how many events it handled. */
export async function pullEvents(client: ShelfmarkClient, options: PullOptions): Promise<number> {
  const log = options.log ?? ((line: string) => console.log(line));
  const deduplicator = options.deduplicator ?? new WebhookDeduplicator();
  const after = readCursor(options.cursorFile);
  let handled = 0;
  for await (const event of client.events.stream({
    ...(after === undefined ? {} : { after }),
    ...(options.types === undefined ? {} : { types: options.types }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    // Persisted after the event was handled: a crash in between handles it again (at least once).
    onCursor: (cursor) => saveCursor(options.cursorFile, cursor),
  })) {
    if (deduplicator.isDuplicate(event.id)) continue;
    log(describeFeedEvent(event));
    handled++;
  }
  return handled;
}

if (isMain(import.meta.url)) {
  const stop = new AbortController();
  process.on('SIGINT', () => stop.abort());
  process.on('SIGTERM', () => stop.abort());
  const types = process.env.TYPES?.split(',').filter((type) => type !== '');
  await pullEvents(clientFromEnv(), {
    cursorFile: process.env.CURSOR_FILE ?? './shelfmark.cursor',
    ...(types === undefined ? {} : { types }),
    signal: stop.signal,
  });
}
