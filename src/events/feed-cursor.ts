/**
 * Feed cursors: a position (`events.seq`, given in the order events become visible: feed-sequence.ts)
 * and `asOf`, the time up to which its reader had seen the feed, so a cursor older than the event
 * retention is recognised (410) without a look-up. Opaque to clients: base64url of
 * `e1.<position>.<asOf in seconds>`.
 */

export interface FeedCursor {
  readonly position: number;
  /** Epoch ms: the reader had seen every event visible before this (to the second). */
  readonly asOf: number;
}

/** Before every event: where a reader without `after` starts. */
export const FEED_START = 0;

export function encodeCursor(cursor: FeedCursor): string {
  return Buffer.from(`e1.${cursor.position}.${Math.floor(cursor.asOf / 1000)}`).toString('base64url');
}

const SHAPE = /^e1\.(\d{1,15})\.(\d{1,12})$/;

/**
 * A cursor as the API document states it: base64url of the shape above, so it begins with the encoding
 * of `e1.` and has 4 to 38 characters after it (`e1.0.0` to 15 and 12 digits).
 */
export const CURSOR_PATTERN = `^${Buffer.from('e1.').toString('base64url')}[A-Za-z0-9_-]{4,38}$`;

/** The cursor a client sent, or undefined when it is not one this service made. */
export function decodeCursor(text: string): FeedCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,60}$/.test(text)) return undefined;
  const match = SHAPE.exec(Buffer.from(text, 'base64url').toString('latin1'));
  if (match === null) return undefined;
  return { position: Number(match[1]), asOf: Number(match[2]) * 1000 };
}
