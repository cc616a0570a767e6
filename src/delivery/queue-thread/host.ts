/**
 * The delivery queue's thread: its own connection to the SQLite file, running the claims and
 * completions the worker asks for. better-sqlite3 is synchronous, so on the worker's event loop each
 * statement held up the sending; here it runs beside it on another core.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { connectDatabase } from '../../db/database.js';
import { DeliveryStore } from '../store.js';
import type { QueueHostData, QueueReply, QueueRequest } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('queue-thread/host.ts runs as a worker thread');
const { sqliteFile, sqliteCacheMib } = workerData as QueueHostData;
const store = new DeliveryStore(await connectDatabase(`sqlite:${sqliteFile}`, { sqliteCacheMib }));

function run(request: QueueRequest): Promise<unknown> {
  switch (request.operation) {
    case 'claimToSend':
      return store.claimToSend(...request.args);
    case 'completeMany':
      return store.completeMany(...request.args);
    case 'release':
      return store.release(...request.args);
    case 'abandon':
      return store.abandon(...request.args);
  }
}

port.on('message', (request: QueueRequest) => {
  run(request).then(
    (value) => port.postMessage({ id: request.id, ok: true, value } satisfies QueueReply),
    (error: unknown) => port.postMessage({ id: request.id, ok: false, error } satisfies QueueReply),
  );
});
