/**
 * The delivery queue on a thread of its own (host.ts), for SQLite files: the worker's claims and
 * completions run there on a second connection while this thread signs and sends. Each call is one
 * message each way, carrying a whole claim or batch of completions. The thread starts with start()
 * or the first call, and again after it died (every call waiting on it then fails, like a failed statement: the worker
 * logs it, the leases expire and the deliveries are claimed again).
 */
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../../threads.js';
import type { DeliveryQueue } from '../store.js';
import type { QueueHostData, QueueOperation, QueueReply, QueueRequest } from './protocol.js';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A running host thread and the calls waiting on it (each thread answers only its own). */
interface Host {
  thread: Worker;
  pending: Map<number, Pending>;
}

export class ThreadedDeliveryQueue implements DeliveryQueue {
  readonly claimsOverlapSending = true;
  private host: Host | undefined;
  /** Every call not yet answered, for close(). */
  private readonly answers = new Set<Promise<unknown>>();
  private nextId = 0;

  constructor(private readonly data: QueueHostData) {}

  claimToSend(...args: Parameters<DeliveryQueue['claimToSend']>): ReturnType<DeliveryQueue['claimToSend']> {
    return this.call('claimToSend', args);
  }

  completeMany(...args: Parameters<DeliveryQueue['completeMany']>): ReturnType<DeliveryQueue['completeMany']> {
    return this.call('completeMany', args);
  }

  release(...args: Parameters<DeliveryQueue['release']>): ReturnType<DeliveryQueue['release']> {
    return this.call('release', args);
  }

  abandon(...args: Parameters<DeliveryQueue['abandon']>): ReturnType<DeliveryQueue['abandon']> {
    return this.call('abandon', args);
  }

  /** Starts the thread now rather than at the first call, so its start-up does not delay the first claim. */
  start(): this {
    this.running();
    return this;
  }

  /** Ends the thread once every call made so far has been answered. */
  async close(): Promise<void> {
    await Promise.allSettled(this.answers);
    const host = this.host;
    this.host = undefined;
    await host?.thread.terminate();
  }

  private call<K extends QueueOperation>(
    operation: K,
    args: Parameters<DeliveryQueue[K]>,
  ): ReturnType<DeliveryQueue[K]> {
    const id = this.nextId++;
    // The operation and its arguments come from the same method: the pair is a QueueRequest.
    const request = { id, operation, args } as QueueRequest;
    const answer = new Promise((resolve, reject) => {
      const { thread, pending } = this.running();
      // A call waiting on the thread keeps the process alive, as pending I/O does; an idle thread does not.
      if (pending.size === 0) thread.ref();
      pending.set(id, { resolve, reject });
      thread.postMessage(request);
    });
    this.answers.add(answer);
    const settled = (): void => {
      this.answers.delete(answer);
    };
    answer.then(settled, settled);
    // The host answers with what DeliveryStore's method of the same name returned.
    return answer as ReturnType<DeliveryQueue[K]>;
  }

  private running(): Host {
    if (this.host !== undefined) return this.host;
    const host: Host = {
      thread: new Worker(threadEntry(import.meta.url, 'host'), { workerData: this.data }),
      pending: new Map(),
    };
    const { thread, pending } = host;
    thread.on('message', (reply: QueueReply) => {
      const entry = pending.get(reply.id);
      if (entry === undefined) return;
      pending.delete(reply.id);
      if (pending.size === 0) thread.unref();
      if (reply.ok) entry.resolve(reply.value);
      else entry.reject(reply.error);
    });
    // The first of 'error' and 'exit' carries the cause; calls made after it go to a new thread.
    const died = (error: unknown): void => {
      if (this.host === host) this.host = undefined;
      for (const entry of pending.values()) entry.reject(error);
      pending.clear();
    };
    thread.on('error', died);
    thread.on('exit', (code) => died(new Error(`the delivery queue's thread exited (${code})`)));
    thread.unref();
    this.host = host;
    return host;
  }
}
