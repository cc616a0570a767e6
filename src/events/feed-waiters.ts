/**
 * The feed's long-poll waiters on this node. One head look-up per wake-up, however many requests wait:
 * a waiter is released when the head passes its position (it then reads its page), when its time is
 * up, when its client goes away, or when the node shuts down.
 *
 * Wake-ups: this node's commits (the outbox), and on PostgreSQL every node's commits and stamps through
 * LISTEN/NOTIFY (`shelfmark_deliveries`, `shelfmark_events`); a head look-up on PostgreSQL first stamps
 * committed events that have no position yet (feed-store.ts). While requests wait the head is also
 * polled (PostgreSQL every second, for a lost notification or an event written outside the outbox;
 * SQLite every 250 ms, for the other processes of CLUSTER_WORKERS, which share no notification).
 */
import { Problem } from '../problems/catalogue.js';
import { DELIVERIES_CHANNEL, EVENTS_CHANNEL } from './channels.js';
import type { FeedStore } from './feed-store.js';

export type WaitOutcome = 'moved' | 'timeout' | 'released';

interface Waiter {
  position: number;
  finish: (outcome: WaitOutcome) => void;
}

type Listen = (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;

export class FeedWaiters {
  private head: number | undefined;
  /** When `head` was read (performance.now()), and how many wake-ups had come by then. */
  private headAt = Number.NEGATIVE_INFINITY;
  private wakes = 0;
  private headWakes = -1;
  private readonly waiters = new Set<Waiter>();
  private readonly waitingPerClient = new Map<string, number>();
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private poll: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>)[] = [];
  private closed = false;
  /** The look-up put off while nobody waits (wake()). */
  private deferred: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: FeedStore,
    private readonly options: { maxWaitingPerClient: number; pollMs: number; lookUpAfterMs: number },
  ) {}

  /** Listens for other nodes' commits (PostgreSQL). Without a listener the poll still wakes waiters. */
  async start(listen: Listen | undefined): Promise<void> {
    if (listen === undefined) return;
    for (const channel of [DELIVERIES_CHANNEL, EVENTS_CHANNEL]) {
      const stop = await listen(channel, () => this.wake()).catch(() => undefined);
      if (stop !== undefined) this.unlisten.push(stop);
    }
  }

  /**
   * Counts one waiting request of a client for as long as it is held; beyond the cap a 429. Returns the
   * function that ends the count.
   */
  enter(clientId: string): () => void {
    const max = this.options.maxWaitingPerClient;
    const now = this.waitingPerClient.get(clientId) ?? 0;
    if (now >= max)
      throw new Problem(
        'rate-limited',
        `at most ${max} waiting requests (wait > 0) per client at a time on a node (EVENTS_MAX_WAITING_PER_CLIENT); this client has ${now}: follow the feed with one request at a time`,
        { limit: max },
        { 'retry-after': '1' },
      );
    this.waitingPerClient.set(clientId, now + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const count = (this.waitingPerClient.get(clientId) ?? 1) - 1;
      if (count <= 0) this.waitingPerClient.delete(clientId);
      else this.waitingPerClient.set(clientId, count);
    };
  }

  /** Waits until an event after `position` may be visible, `ms` passes, `signal` aborts or the node stops. */
  wait(position: number, ms: number, signal?: AbortSignal): Promise<WaitOutcome> {
    if (this.closed) return Promise.resolve('released');
    if (this.head !== undefined && this.head > position) return Promise.resolve('moved');
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        finish: (outcome) => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(timer);
          signal?.removeEventListener('abort', abort);
          if (this.waiters.size === 0) this.stopPolling();
          resolve(outcome);
        },
      };
      const timer = setTimeout(() => waiter.finish('timeout'), ms);
      const abort = (): void => waiter.finish('released');
      signal?.addEventListener('abort', abort, { once: true });
      this.waiters.add(waiter);
      this.startPolling();
      // A commit came after this reader's look-up and its look-up was put off: it is due now.
      if (this.deferred !== undefined) {
        clearTimeout(this.deferred);
        this.deferred = undefined;
        this.lookUpNow();
      }
      if (signal?.aborted === true) waiter.finish('released');
    });
  }

  /**
   * A commit may have made events visible: look at the head once (calls never overlap). With nobody
   * waiting nobody needs the head now (the next reader looks it up: `wakes` moved), and the look-up is
   * put off by `lookUpAfterMs`, once for every commit in between: on PostgreSQL it stamps the new events'
   * positions (a write transaction of its own), and a look-up per commit took more round trips than the
   * commit itself (docs/decisions/0004-event-feed-order.md).
   */
  wake(): void {
    this.wakes++;
    if (this.closed) return;
    if (this.waiters.size === 0) {
      this.lookUpSoon();
      return;
    }
    this.lookUpNow();
  }

  private lookUpSoon(): void {
    if (this.deferred !== undefined) return;
    this.deferred = setTimeout(() => {
      this.deferred = undefined;
      if (!this.closed) this.lookUpNow();
    }, this.options.lookUpAfterMs);
    this.deferred.unref();
  }

  private lookUpNow(): void {
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          await this.refresh();
        } while (this.refreshAgain && !this.closed);
      } catch {
        // The database is unreachable for now: the poll tries again, and waiters time out meanwhile.
      } finally {
        this.refreshing = undefined;
      }
    })();
  }

  /** The newest head this node has read (a horizon a woken reader may read up to), if any. */
  get latest(): number | undefined {
    return this.head;
  }

  /** True once the node shuts down (close()). */
  get closing(): boolean {
    return this.closed;
  }

  get waiting(): number {
    return this.waiters.size;
  }

  /** Shutdown: every waiting request answers now (with what it has), and no new one waits. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.deferred);
    for (const waiter of [...this.waiters]) waiter.finish('released');
    this.stopPolling();
    const stops = this.unlisten;
    this.unlisten = [];
    await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
    await this.refreshing;
  }

  /**
   * The head for a reader: the one this node read last when no commit was announced since and it is
   * younger than `maxAgeMs` (so a poller costs no query; this node's commits and, on PostgreSQL, every
   * node's make the next reader look), else a fresh look-up.
   */
  async currentHead(maxAgeMs: number): Promise<number> {
    if (this.head !== undefined && this.headWakes === this.wakes && performance.now() - this.headAt < maxAgeMs)
      return this.head;
    const wakes = this.wakes;
    const head = await this.store.head();
    this.observe(head, wakes);
    return head;
  }

  private observe(head: number, wakesBefore: number): void {
    if (this.head === undefined || head >= this.head) {
      this.head = head;
      this.headAt = performance.now();
      this.headWakes = wakesBefore;
    }
  }

  private async refresh(): Promise<void> {
    const wakes = this.wakes;
    const head = await this.store.head();
    this.observe(head, wakes);
    for (const waiter of [...this.waiters]) if (head > waiter.position) waiter.finish('moved');
  }

  private startPolling(): void {
    if (this.poll !== undefined || this.closed) return;
    this.poll = setInterval(() => this.wake(), this.options.pollMs);
    this.poll.unref();
  }

  private stopPolling(): void {
    if (this.poll === undefined) return;
    clearInterval(this.poll);
    this.poll = undefined;
  }
}
