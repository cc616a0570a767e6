/**
 * Verifies a Shelfmark webhook request with Web Crypto (no dependency, any modern runtime):
 *
 * - `x-hook-signature`: base64 HMAC-SHA256 of the raw body keyed with the UTF-8 bytes of the webhook
 *   secret exactly as issued (the specification's signature);
 * - when present, the Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`
 *   (HMAC of "id.timestamp.body" keyed with the base64 part of `whsec_...`), with a timestamp tolerance
 *   against replays.
 *
 * Signatures are compared by crypto.subtle.verify, which is constant-time. During a secret rotation
 * Shelfmark signs `x-hook-signature` with the newest secret only but `webhook-signature` with both; a
 * receiver that still knows only the previous secret is therefore accepted when the Standard Webhooks
 * signature (which covers id, timestamp and body) verifies.
 */
import { ShelfmarkError } from '../errors.js';
import type { EventName } from '../types.js';

export type WebhookFailure =
  | 'no-secret'
  | 'missing-signature'
  | 'invalid-signature'
  | 'invalid-headers'
  | 'stale-timestamp'
  | 'invalid-payload';

/** Why a webhook request was refused; `reason` is stable, the message explains. */
export class WebhookVerificationError extends ShelfmarkError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The body exactly as received: never re-serialised JSON. */
  rawBody: string | Uint8Array | ArrayBuffer;
  headers: HeaderBag;
  /** The webhook secret (`whsec_...`) exactly as Shelfmark issued it. */
  secret?: string;
  /** Several secrets, e.g. the new and the previous one while rotating. */
  secrets?: readonly string[];
  /** How far webhook-timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; injected for tests. */
  now?: () => number;
}

/** A verified webhook: the payload plus the delivery's id (stable across retries) and canonical event name. */
export interface WebhookEvent {
  /** What happened, e.g. `published`, `created`, `ping`. */
  type: string;
  /** `list`, `school`, `offer` or `subscription` (ping). */
  resource: string;
  /** The resource's identifier: fetch it with client.lml.lists.get(identifier), schools.get or offers.get. */
  identifier: string;
  /**
   * The canonical event name from x-hook-event, e.g. `list.published` or `offer.status` (an EventName,
   * or `ping`); undefined if the sender omitted it.
   */
  event: EventName | 'ping' | undefined;
  /** The webhook-id (delivery id): the same on every retry of this delivery. Undefined if the sender omitted it. */
  id: string | undefined;
  /**
   * The x-hook-event-id (event id): the same on every delivery of this event, to each subscription, and
   * the `id` of the event in the feed (client.events): de-duplicate push and pull on it.
   */
  eventId: string | undefined;
}

const encoder = new TextEncoder();

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function')
    return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const value = bag[name] ?? Object.entries(bag).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(',') : value;
}

function bytesOf(body: VerifyWebhookOptions['rawBody']): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function fromBase64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Copies into a fresh ArrayBuffer-backed view: what Web Crypto's BufferSource type asks for. */
const buffer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

async function hmacVerifies(key: Uint8Array, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const cryptoKey = await crypto.subtle.importKey('raw', buffer(key), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  return crypto.subtle.verify('HMAC', cryptoKey, buffer(signature), buffer(data));
}

async function anyVerifies(
  keys: readonly Uint8Array[],
  signatures: readonly Uint8Array[],
  data: Uint8Array,
): Promise<boolean> {
  for (const key of keys) for (const signature of signatures) if (await hmacVerifies(key, signature, data)) return true;
  return false;
}

/** The raw HMAC key of a Standard Webhooks secret; undefined when it is not base64 (then only x-hook-signature can match). */
function standardKey(secret: string): Uint8Array | undefined {
  return fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
}

function parsePayload(body: Uint8Array): Pick<WebhookEvent, 'type' | 'resource' | 'identifier'> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('invalid-payload', 'the body is not UTF-8 JSON');
  }
  const fields =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const { type, resource, identifier } = fields;
  if (typeof type !== 'string' || typeof resource !== 'string' || typeof identifier !== 'string') {
    throw new WebhookVerificationError(
      'invalid-payload',
      'the body lacks the string fields type, resource and identifier',
    );
  }
  return { type, resource, identifier };
}

/** Verifies the request and answers the typed event, or throws WebhookVerificationError saying why. */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const secrets = [...(options.secrets ?? []), ...(options.secret === undefined ? [] : [options.secret])].filter(
    (secret) => secret !== '',
  );
  if (secrets.length === 0)
    throw new WebhookVerificationError('no-secret', 'no webhook secret was given to verify with');
  const body = bytesOf(options.rawBody);
  const headers = options.headers;

  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  const standardSignature = headerValue(headers, 'webhook-signature');
  const hookSignature = headerValue(headers, 'x-hook-signature');

  let standardVerified = false;
  if (id !== undefined || timestamp !== undefined || standardSignature !== undefined) {
    if (
      id === undefined ||
      timestamp === undefined ||
      standardSignature === undefined ||
      !/^\d{1,12}$/.test(timestamp)
    ) {
      throw new WebhookVerificationError(
        'invalid-headers',
        'webhook-id, webhook-timestamp and webhook-signature must come together, the timestamp in unix seconds',
      );
    }
    const signatures = standardSignature
      .split(' ')
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => fromBase64(entry.slice(3)))
      .filter((bytes): bytes is Uint8Array => bytes !== undefined);
    const keys = secrets.map(standardKey).filter((key): key is Uint8Array => key !== undefined);
    const signed = new Uint8Array([...encoder.encode(`${id}.${timestamp}.`), ...body]);
    if (!(await anyVerifies(keys, signatures, signed))) {
      throw new WebhookVerificationError(
        'invalid-signature',
        'webhook-signature does not match the body with any of the given secrets',
      );
    }
    const toleranceMs = (options.toleranceSeconds ?? 300) * 1000;
    const age = (options.now ?? Date.now)() - Number(timestamp) * 1000;
    if (Math.abs(age) > toleranceMs) {
      throw new WebhookVerificationError(
        'stale-timestamp',
        `webhook-timestamp is ${Math.round(age / 1000)} s from now, beyond the tolerance of ${toleranceMs / 1000} s`,
      );
    }
    standardVerified = true;
  }

  if (hookSignature !== undefined) {
    const signature = fromBase64(hookSignature.trim());
    const keys = secrets.map((secret) => encoder.encode(secret));
    const matches = signature !== undefined && (await anyVerifies(keys, [signature], body));
    // A mismatch alone is fatal; after a verified webhook-signature it means the sender already uses a newer secret.
    if (!matches && !standardVerified)
      throw new WebhookVerificationError(
        'invalid-signature',
        'x-hook-signature does not match the body with any of the given secrets',
      );
  } else if (!standardVerified) {
    throw new WebhookVerificationError(
      'missing-signature',
      'the request carries neither x-hook-signature nor webhook-signature',
    );
  }

  // The sender names the event; a newer service may name one this SDK does not know yet.
  const event = headerValue(headers, 'x-hook-event') as WebhookEvent['event'];
  return { ...parsePayload(body), event, id, eventId: headerValue(headers, 'x-hook-event-id') };
}
