/**
 * The offers import's reading thread: reads the CSV file and checks its rows (import-csv.ts) while the
 * importing thread writes, and posts them in groups as the importing thread asks for them.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { type CheckedRow, checkedRows } from './import-csv.js';
import type { ReaderData, ReaderMessage } from './import-reader.js';

if (parentPort === null) throw new Error('offers/import-reader-thread.ts runs as a worker thread');
const port: MessagePort = parentPort;
const { path, rowsPerMessage, messagesAhead } = workerData as ReaderData;

/** Groups the reader may still be sent: one more for each it asks for. */
let credits = messagesAhead;
port.on('message', () => {
  credits++;
});

async function post(rows: CheckedRow[]): Promise<void> {
  while (credits === 0) await once(port, 'message');
  credits--;
  port.postMessage({ rows } satisfies ReaderMessage);
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
