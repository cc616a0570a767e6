/**
 * One delivery attempt: sign, send, measure, and decide what happens next (success, a scheduled
 * retry, or failure). Returns the completion for the queue to record; writes nothing itself.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Metrics } from '../observability/metrics.js';
import type { AttemptRecord, Completion, SendContext } from './queue/types.js';
import { DISABLE_AFTER_FAILING_MS, decide, errorClassOf } from './retry.js';
import type { SendResult, WebhookSender } from './sender.js';
import { signedHeaders, signingSecrets } from './signer.js';

/** The configuration an attempt reads: the retry schedule and when a failing subscription is announced. */
export type AttemptSettings = Pick<Config, 'webhookRetryScheduleSeconds' | 'subscriptionFailingAfterSeconds'>;

export interface AttemptDeps {
  sender: WebhookSender;
  clock: Clock;
  config: AttemptSettings;
  metrics: Metrics;
  /** The lease owner recording the attempt. */
  owner: string;
  random: () => number;
}

/** What one signed request to a receiver came to, measured. */
export interface Sent {
  result: SendResult;
  startedAt: number;
  durationMs: number;
  errorClass: ReturnType<typeof errorClassOf>;
}

/** Signs and sends one attempt of a delivery (the worker's, a ping or "Retry now"), measured. */
export async function signAndSend(
  context: Pick<SendContext, 'id' | 'eventName' | 'payload' | 'notificationUrl' | 'secrets'> & { eventId?: string },
  deps: Pick<AttemptDeps, 'sender' | 'clock' | 'metrics'>,
): Promise<Sent> {
  const { clock, metrics, sender } = deps;
  const startedAt = clock.now();
  const headers = signedHeaders({
    deliveryId: context.id,
    eventName: context.eventName,
    eventId: context.eventId,
    body: context.payload,
    now: startedAt,
    secrets: signingSecrets(context.secrets, startedAt),
  });
  metrics.deliveriesInFlight.inc();
  const started = performance.now();
  let result: SendResult;
  try {
    result = await sender.send({ url: context.notificationUrl, headers, body: context.payload });
  } finally {
    metrics.deliveriesInFlight.dec();
  }
  const durationMs = Math.round(performance.now() - started);
  const errorClass = errorClassOf(result);
  metrics.deliveryAttempts.inc({ outcome: errorClass ?? 'success' });
  metrics.deliveryLatency.observe(durationMs / 1000);
  return { result, startedAt, durationMs, errorClass };
}

/** The attempts table's record of a sent attempt. */
export function attemptRecord(attemptNo: number, sent: Sent): AttemptRecord {
  const { result, errorClass } = sent;
  return {
    attemptNo,
    startedAt: sent.startedAt,
    durationMs: sent.durationMs,
    statusCode: result.kind === 'response' ? result.statusCode : null,
    errorClass,
    errorMessage:
      result.kind === 'error'
        ? result.message.slice(0, 1000)
        : errorClass === null
          ? null
          : `HTTP ${result.statusCode}`,
    responseBody: result.kind === 'response' ? result.bodySnippet : null,
  };
}

export async function sendAttempt(context: SendContext, deps: AttemptDeps): Promise<Completion> {
  const { clock, config } = deps;
  const sent = await signAndSend(context, deps);
  const { result } = sent;
  const now = clock.now();
  const attemptNo = context.attemptCount + 1;
  const decision = decide({
    attemptNo,
    now,
    result,
    scheduleSeconds: config.webhookRetryScheduleSeconds,
    random: deps.random,
  });
  return {
    id: context.id,
    owner: deps.owner,
    subscriptionId: context.subscriptionId,
    now,
    attempt: attemptRecord(attemptNo, sent),
    status: decision.status,
    nextAttemptAt: decision.status === 'pending' ? decision.nextAttemptAt : now,
    disableReason: decision.status === 'failed' ? decision.disableReason : undefined,
    failingCutoff: now - DISABLE_AFTER_FAILING_MS,
    noticeCutoff: now - config.subscriptionFailingAfterSeconds * 1000,
  };
}
