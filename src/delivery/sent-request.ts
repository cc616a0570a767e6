/**
 * What an attempt sent, as the operator and the partner are shown it: every header the worker signs a
 * request with (signer.ts) for that delivery at that attempt's time, the signatures masked so no
 * page reveals what a secret signs, and the body byte for byte.
 */
import { signedHeaders } from './signer.js';

export const MASKED_SIGNATURE = '•••••••• (masked)';
const SIGNATURE_HEADERS: readonly string[] = ['x-hook-signature', 'webhook-signature'];

export interface SentRequest {
  requestHeaders: Record<string, string>;
  requestBody: string;
}

export function sentRequest(delivery: {
  id: string;
  eventId: string;
  event: string;
  body: string;
  startedAt: string;
}): SentRequest {
  const headers = signedHeaders({
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    now: Date.parse(delivery.startedAt),
    body: delivery.body,
    eventName: delivery.event,
    secrets: { current: 'whsec_', previous: undefined },
  });
  for (const name of SIGNATURE_HEADERS) if (name in headers) headers[name] = MASKED_SIGNATURE;
  return { requestHeaders: headers, requestBody: delivery.body };
}
