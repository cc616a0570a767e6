/** The shapes the delivery queue's operations read and write, shared by the worker and its tests. */
import type { Db } from '../../db/database.js';
import type { NewDeliveryAttempt } from '../../db/schema.js';
import { ids } from '../../ids.js';
import type { ErrorClass } from '../model.js';
import type { WebhookSecrets } from '../signer.js';

/** The query builder of a connection or of an open transaction. */
export type Executor = Db['kysely'];

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  subscription_id: string;
  attempt_count: number;
}

/** Everything needed to send one claimed delivery. */
export interface SendContext {
  id: string;
  attemptCount: number;
  eventName: string;
  /** The event's id: the x-hook-event-id header, the same on every delivery of it and in the event feed. */
  eventId: string;
  payload: string;
  subscriptionId: string;
  subscriptionStatus: string;
  notificationUrl: string;
  /** Its client's webhook secrets, all of the client that crosses to the sender (no credentials, no row). */
  secrets: WebhookSecrets;
  /** When the delivery was created (its event committed), for the end-to-end latency histogram. */
  createdAt: number;
}

/** What one claim leased: the deliveries ready to send, and those whose event, subscription or client is gone. */
export interface ClaimedBatch {
  contexts: SendContext[];
  orphans: string[];
}

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** At most this many deliveries of one subscription leased at once by this claimer (`held` counted). */
  perSubscription: number;
  /** The leases this claimer already holds, per subscription (the worker's LeaseTally); none if absent. */
  held?: ReadonlyMap<string, number>;
  lane: 'first' | 'retry';
  /**
   * How far the claim looks. `window` (the worker's usual claim): the first due rows (four per row wanted, at least 128)
   * only, so a claim costs the same however deep the backlog is. `past-capped`: walks past the rows
   * of subscriptions at their cap for as long as it takes, so one subscription's backlog cannot hide
   * another's deliveries behind it (costly on a deep backlog: the worker runs it at most once a poll
   * interval, when a window claim came back short). Default `past-capped`.
   */
  reach?: 'window' | 'past-capped';
}

export interface AttemptRecord {
  attemptNo: number;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  responseBody: string | null;
}

export interface Completion {
  id: string;
  owner: string;
  subscriptionId: string;
  now: number;
  attempt: AttemptRecord;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: number;
  /** Disable the subscription with this reason (410 Gone). */
  disableReason?: string | undefined;
  /** Disable the subscription when it has been failing since at or before this instant. */
  failingCutoff: number;
  /** Announce subscription.failing when it has been failing since at or before this instant (delivery/subscription-health.ts). */
  noticeCutoff?: number | undefined;
}

export interface CompletionResult {
  /** False when the lease was lost to another worker: nothing was written. */
  recorded: boolean;
  /** Deliveries (this one included) that ended as failed in this transaction. */
  failed: number;
  subscriptionDisabled: boolean;
}

/** The result of a completion whose lease was lost: nothing was written. */
export const NOT_RECORDED: CompletionResult = Object.freeze({
  recorded: false,
  failed: 0,
  subscriptionDisabled: false,
});

/**
 * Where the worker's own bookkeeping (leases, completions) is written: on PostgreSQL, connections
 * that do not wait for the WAL flush at commit. Should PostgreSQL itself crash, the last fraction of a
 * second of such writes may be lost: a lost lease or completion only means the delivery is claimed
 * and sent again with the same webhook-id, which at-least-once allows. Events and their deliveries
 * (the outbox) always commit synchronously, so no event can be lost that way.
 */
export function bookkeeping(db: Db): Executor {
  return db.relaxed?.() ?? db.kysely;
}

/** The delivery_attempts row of a completion (a new attempt id each call). */
export function attemptRow(input: Completion): NewDeliveryAttempt {
  const { attempt } = input;
  return {
    id: ids.attempt(),
    delivery_id: input.id,
    attempt_no: attempt.attemptNo,
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    status_code: attempt.statusCode,
    error_class: attempt.errorClass,
    error_message: attempt.errorMessage,
    response_body: attempt.responseBody,
  };
}
