/**
 * The syntactic rules for a notification URL. The address rules (SSRF) come after, in the service,
 * because they need DNS. Parsing uses WHATWG URL, the same parser the delivery worker dials with, so
 * the host we vet is the host we call: inet_aton spellings such as http://2130706433/ or http://0x7f.1/
 * are normalised to 127.0.0.1 here and then refused by the address policy.
 */
import { Problem } from '../problems/catalogue.js';

export const MAX_NOTIFICATION_URL_LENGTH = 2048;

/**
 * What the API document states of a notification URL (the schema keeps the length; the rest is checked
 * here, with answers that say what is wrong): an absolute http(s) URI without credentials or fragment.
 */
export const NOTIFICATION_URL_RULE = {
  format: 'uri',
  minLength: 'http://a'.length,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#]+(?:[/?][^#]*)?$',
} as const;

const invalid = (detail: string): Problem =>
  new Problem('validation-failed', detail, {
    errors: [{ location: 'body', path: '/notificationUrl', message: detail }],
  });

/** Returns the parsed URL; `href` is its normalised form, which is what gets stored and called. */
export function parseNotificationUrl(raw: string): URL {
  if (raw.length > MAX_NOTIFICATION_URL_LENGTH) {
    throw invalid(`notificationUrl must be at most ${MAX_NOTIFICATION_URL_LENGTH} characters, got ${raw.length}`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('notificationUrl must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(`notificationUrl must use http or https, not ${url.protocol.slice(0, -1)}`);
  }
  // Credentials in a URL end up in logs and dashboards; receivers authenticate us by the signature instead.
  if (url.username !== '' || url.password !== '') {
    throw invalid(
      'notificationUrl must not contain credentials (user:password@); verify the x-hook-signature header instead',
    );
  }
  // A fragment is never sent over HTTP, so accepting one would only hide a mistake.
  if (raw.includes('#')) throw invalid('notificationUrl must not contain a fragment (#...)');
  if (url.href.length > MAX_NOTIFICATION_URL_LENGTH) {
    throw invalid(`notificationUrl must be at most ${MAX_NOTIFICATION_URL_LENGTH} characters once normalised`);
  }
  return url;
}
