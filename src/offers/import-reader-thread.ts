/**
 * The offers import's reading thread: reads the CSV file and checks its rows (import-csv.ts) while the
 * importing thread writes, and posts them in groups as the importing thread asks for them.
 */
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { type CheckedRow, checkedRows } from './import-csv.js';
import type { ReaderData, ReaderMessage } from './import-reader.js';

const port = parentPort;
if (port === null) throw new Error('offers/import-reader-thread.ts runs as a worker thread');
const { path, rowsPerMessage, messagesAhead } = workerData as ReaderData;

let credits = messagesAhead;
let wake: (() => void) | undefined;
port.on('message', () => {
  credits++;
  wake?.();
});

async function post(rows: CheckedRow[]): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits--;
  port?.postMessage({ rows } satisfies ReaderMessage);
}

let rows: CheckedRow[] = [];
for await (const checked of checkedRows(createReadStream(path))) {
  rows.push(checked);
  if (rows.length >= rowsPerMessage) {
    await post(rows);
    rows = [];
  }
}
if (rows.length > 0) await post(rows);
port.postMessage({ end: true } satisfies ReaderMessage);
