/** The messages between the delivery queue's client (the worker's thread) and its host thread. */
import type { DeliveryQueue } from '../store.js';

/** The queue operations that cross the thread boundary: every method of DeliveryQueue. */
export type QueueOperation = Exclude<keyof DeliveryQueue, 'claimsOverlapSending'>;

type Operations = Pick<DeliveryQueue, QueueOperation>;

export type QueueRequest = {
  [K in QueueOperation]: { id: number; operation: K; args: Parameters<Operations[K]> };
}[QueueOperation];

export type QueueReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: unknown };

/** What the host thread is started with (`workerData`). */
export interface QueueHostData {
  sqliteFile: string;
  sqliteCacheMib: number;
}
