/**
 * The last answers of the offers call, by the `eans` value as sent: a repeated query (a shop polling
 * its books, a page asking again) skips parsing and checking the codes, joining the fragments and
 * hashing the tag, and sends the same flat string again (docs/performance.md#decisions).
 *
 * Only answers made at once from remembered fragments are kept, and the read model forgets them all
 * whenever it forgets any fragment (a change of this node, or one read from the change log), so an
 * answer here is never older than the fragments it was made of. Bounded in entries and in size,
 * whoever chooses the queries.
 */
import type { PublishedOffers } from './fragment.js';

/** Most answers kept; the oldest goes first. */
export const ANSWER_MEMO_ENTRIES = 256;
/** Larger answers are not kept (JSON characters): the memo holds at most a few MiB. */
export const ANSWER_MEMO_MAX_CHARS = 16 * 1024;
/** Keys kept: comma-separated digits, as every client sends them (other spellings are answered, not kept). */
const PLAIN_QUERY = /^[0-9,]{1,2048}$/;

export class AnswerMemo {
  private readonly answers = new Map<string, PublishedOffers>();

  get(query: string): PublishedOffers | undefined {
    return this.answers.get(query);
  }

  remember(query: string, answer: PublishedOffers): void {
    if (answer.json.length > ANSWER_MEMO_MAX_CHARS || !PLAIN_QUERY.test(query)) return;
    if (this.answers.size >= ANSWER_MEMO_ENTRIES) {
      const oldest = this.answers.keys().next();
      if (oldest.done !== true) this.answers.delete(oldest.value);
    }
    // A flat copy: the query value is cut from the request's URL, which must not stay alive as a key.
    this.answers.set(Buffer.from(query, 'latin1').toString('latin1'), answer);
  }

  clear(): void {
    this.answers.clear();
  }

  get size(): number {
    return this.answers.size;
  }
}
