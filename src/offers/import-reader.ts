/**
 * The rows of an offers file, read and checked on a thread of its own (import-reader-thread.ts): the
 * reading and checking cost about a fifth of an import's CPU, and on the importing thread they took
 * turns with the writing, which better-sqlite3 runs on that thread too.
 *
 * The rows arrive in the file's order, in groups, at most a few groups ahead of the import. Only the
 * thread's own end message ends them: a thread that stops before it, for whatever reason, fails the
 * import rather than ending it short.
 */
import { on } from 'node:events';
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../threads.js';
import type { CheckedRow } from './import-csv.js';

export interface ReaderData {
  path: string;
  rowsPerMessage: number;
  messagesAhead: number;
}

export type ReaderMessage = { rows: CheckedRow[] } | { end: true };

const ROWS_PER_MESSAGE = 500;
const MESSAGES_AHEAD = 8;

export async function* checkedRowsOnThread(path: string): AsyncGenerator<CheckedRow> {
  const data: ReaderData = { path, rowsPerMessage: ROWS_PER_MESSAGE, messagesAhead: MESSAGES_AHEAD };
  const thread = new Worker(threadEntry(import.meta.url, 'import-reader-thread'), { workerData: data });
  try {
    // Messages are kept until read; the thread's 'error' is thrown here; its exit ends the messages.
    const messages = on(thread, 'message', { close: ['exit'] }) as AsyncIterable<[ReaderMessage]>;
    for await (const [message] of messages) {
      if ('end' in message) return;
      thread.postMessage('more');
      yield* message.rows;
    }
    throw new Error(`the thread reading ${path} stopped before the end of the file`);
  } finally {
    await thread.terminate();
  }
}
