/**
 * Webhook request headers. The body is the event's stored payload, sent byte for byte, so every
 * signature covers exactly the bytes the receiver gets.
 *
 * - `x-hook-signature`: the seed's contract, base64 HMAC-SHA256 of the raw body keyed with the
 *   UTF-8 bytes of the client's webhook secret string exactly as issued (`whsec_` prefix included).
 * - `webhook-id` / `webhook-timestamp` / `webhook-signature`: Standard Webhooks, so
 *   `new Webhook(secret).verify(body, headers)` works; the key is the base64 part after `whsec_`.
 *   During a rotation overlap the previous secret signs too (space-separated `v1,` entries).
 */
import { createHmac } from 'node:crypto';

export const USER_AGENT = 'Shelfmark-Webhooks/1.0';
const SECRET_PREFIX = 'whsec_';

/** A client's webhook secrets as stored: the newest, and the one before it until `previousUntil` (a rotation's overlap). */
export interface WebhookSecrets {
  current: string;
  previous: string | null;
  previousUntil: number | null;
}

/** The secrets a webhook is signed with: the newest first, then the previous one while it overlaps. */
export interface WebhookSigningSecrets {
  current: string;
  previous: string | undefined;
}

/** The secrets that sign at `now`: the previous one only until its overlap ends. */
export function signingSecrets(stored: WebhookSecrets, now: number): WebhookSigningSecrets {
  const { current, previous, previousUntil } = stored;
  return {
    current,
    previous: previous !== null && previousUntil !== null && previousUntil > now ? previous : undefined,
  };
}

export interface SignInput {
  /** The delivery id: stable across retries, so receivers can de-duplicate. */
  deliveryId: string;
  eventName: string;
  /** The event's id (x-hook-event-id): the same on every delivery of the event and in the event feed. */
  eventId?: string | undefined;
  body: string;
  /** Milliseconds since the epoch of this attempt. */
  now: number;
  secrets: WebhookSigningSecrets;
}

/** base64(HMAC-SHA256(body)) keyed with the secret string's own bytes: the seed's x-hook-signature. */
export function hookSignature(body: string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('base64');
}

/** The raw HMAC key of a Standard Webhooks secret (`whsec_<base64>`); a secret without the prefix is used as base64 whole. */
export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** One `v1,<base64>` entry of the Standard Webhooks `webhook-signature` header. */
export function standardSignature(id: string, timestampSeconds: number, body: string, secret: string): string {
  const mac = createHmac('sha256', standardKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

export function signedHeaders(input: SignInput): Record<string, string> {
  const timestamp = Math.floor(input.now / 1000);
  const keys =
    input.secrets.previous === undefined ? [input.secrets.current] : [input.secrets.current, input.secrets.previous];
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-hook-signature': hookSignature(input.body, input.secrets.current),
    'x-hook-event': input.eventName,
    ...(input.eventId === undefined ? {} : { 'x-hook-event-id': input.eventId }),
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((key) => standardSignature(input.deliveryId, timestamp, input.body, key)).join(' '),
  };
}
