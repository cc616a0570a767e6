/** A delivery and its attempts as the log shows them, from their rows. */
import { isoTime } from '../clock.js';
import type { DeliveryAttemptRow } from '../db/schema.js';
import { DELIVERY_STATUSES, type DeliveryStatus, ERROR_CLASSES, type ErrorClass } from './model.js';
import type { DeliveryListRow } from './query-store.js';
import type { AttemptView, DeliveryView, WebhookPayload } from './schemas.js';
import { sentRequest } from './sent-request.js';

const asStatus = (value: string): DeliveryStatus => DELIVERY_STATUSES.find((status) => status === value) ?? 'pending';
const asErrorClass = (value: string | null): ErrorClass | null =>
  ERROR_CLASSES.find((errorClass) => errorClass === value) ?? null;

export function toDeliveryView(row: DeliveryListRow): DeliveryView {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    event: row.event,
    payload: JSON.parse(row.payload) as WebhookPayload,
    status: asStatus(row.status),
    attemptCount: Number(row.attempt_count) + Number(row.manual_attempts ?? 0),
    nextAttemptAt: row.status === 'pending' ? isoTime(Number(row.next_attempt_at)) : null,
    lastStatusCode: row.last_status_code,
    lastErrorClass: asErrorClass(row.last_error_class),
    createdAt: isoTime(Number(row.created_at)),
    completedAt: row.completed_at === null ? null : isoTime(Number(row.completed_at)),
  };
}

/**
 * An attempt of `delivery`, numbered `attemptNo` in the order made (the rows' numbers are the
 * schedule's; manual attempts sit between them), with the request it sent.
 */
export function toAttemptView(delivery: DeliveryListRow, attempt: DeliveryAttemptRow, attemptNo: number): AttemptView {
  const startedAt = isoTime(Number(attempt.started_at));
  return {
    attemptNo,
    startedAt,
    durationMs: attempt.duration_ms,
    statusCode: attempt.status_code,
    errorClass: asErrorClass(attempt.error_class),
    errorMessage: attempt.error_message,
    responseBody: attempt.response_body,
    // The payload is stored as the JSON text sent, so it is the body byte for byte.
    ...sentRequest({
      id: delivery.id,
      eventId: delivery.event_id,
      event: delivery.event,
      body: delivery.payload,
      startedAt,
    }),
  };
}
