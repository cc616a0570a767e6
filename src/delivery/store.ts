/**
 * The delivery queue: the SQL the worker runs, one module per operation in ./queue/ (claim, load the
 * send context, complete succeeded or failed attempts, release, abandon), each for both engines.
 */
import { NO_EVENTS, type UnitOfWork, unitOfWork } from '../changes/unit-of-work.js';
import { type Clock, systemClock } from '../clock.js';
import type { Db } from '../db/database.js';
import { abandon } from './queue/abandon.js';
import { claim, claimToSend } from './queue/claim.js';
import { completeMany } from './queue/complete.js';
import { release } from './queue/release.js';
import type { ClaimedBatch, ClaimedDelivery, ClaimOptions, Completion, CompletionResult } from './queue/types.js';

export type * from './queue/types.js';

/**
 * What the delivery worker asks of its queue: implemented in this process (DeliveryStore) or on a
 * thread of its own (queue-thread/client.ts).
 */
export interface DeliveryQueue {
  /** True when a claim runs off the event loop, so it can overlap the sending. */
  readonly claimsOverlapSending: boolean;
  claimToSend(options: ClaimOptions): Promise<ClaimedBatch>;
  completeMany(inputs: readonly Completion[]): Promise<CompletionResult[]>;
  release(ids: readonly string[], owner: string, now: number): Promise<void>;
  abandon(id: string, owner: string, now: number): Promise<boolean>;
}

export class DeliveryStore implements DeliveryQueue {
  /** A batch with failures is one change of the system's (a subscription it disables is audited). */
  private readonly work: UnitOfWork;

  constructor(
    private readonly db: Db,
    clock: Clock = systemClock,
  ) {
    this.work = unitOfWork(db, clock, NO_EVENTS);
  }

  /**
   * True when a claim runs off the event loop (PostgreSQL), so it can overlap the sending; on SQLite
   * the driver is synchronous and a claim holds the loop while it runs (unless the queue is on its
   * own thread: queue-thread/client.ts).
   */
  get claimsOverlapSending(): boolean {
    return !this.db.dialect.blocksEventLoop;
  }

  /** Leases up to `limit` due deliveries of one lane (queue/claim.ts). */
  claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    return claim(this.db, options);
  }

  /** Leases up to `limit` due deliveries of one lane with what is needed to send them (one statement on PostgreSQL). */
  claimToSend(options: ClaimOptions): Promise<ClaimedBatch> {
    return claimToSend(this.db, options);
  }

  /** Writes the attempt, the delivery's outcome and the subscription's health together. */
  async complete(input: Completion): Promise<CompletionResult> {
    const [result] = await this.completeMany([input]);
    if (result === undefined) throw new Error('completion produced no result');
    return result;
  }

  /** Records several completions in one transaction (queue/complete.ts). */
  completeMany(inputs: readonly Completion[]): Promise<CompletionResult[]> {
    return completeMany(this.db, this.work, inputs);
  }

  /** Gives leased deliveries back unsent (worker stopping, or a queued lease that ran short). */
  release(ids: readonly string[], owner: string, now: number): Promise<void> {
    return release(this.db.kysely, ids, owner, now);
  }

  /** Ends a claimed delivery without sending (its subscription is no longer active). */
  abandon(id: string, owner: string, now: number): Promise<boolean> {
    return abandon(this.db.kysely, id, owner, now);
  }
}
