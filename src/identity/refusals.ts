/**
 * Why a callback was refused, in words an operator can act on, from the error openid-client threw:
 * its checks name the parameter or claim that failed (state, iss, nonce), the provider's token
 * endpoint answers `invalid_grant` to a code used twice, and an `error` in the callback is the
 * provider's own refusal.
 */
import { AuthorizationResponseError, ResponseBodyError } from 'openid-client';
import type { MessageKey } from '../i18n/catalogue.js';
import type { Params } from '../i18n/message.js';

/** The refusal page's sentence: a catalogue key with its parameters (the reason stays English for logs). */
export interface RefusalWords {
  key: Extract<MessageKey, `refusal.${string}`>;
  params?: Params;
}

/** The page's status, the reason in English (logs) and the page's sentence from the catalogue. */
type Refusal = [400 | 403 | 502, string, RefusalWords];

function messages(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(' / ');
}

export function explainProviderError(error: unknown): Refusal {
  if (error instanceof AuthorizationResponseError) {
    const detail = `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
    return [
      403,
      `the identity provider refused the sign-in: ${detail}`,
      { key: 'refusal.provider-refused', params: { detail } },
    ];
  }
  if (error instanceof ResponseBodyError) {
    if (error.error === 'invalid_grant')
      return [
        400,
        'the provider refused the authorization code: it was already used (a replayed callback), has expired, or belongs to another sign-in.',
        { key: 'refusal.code-refused' },
      ];
    return [
      502,
      `the provider's token endpoint refused the exchange: ${error.error}`,
      { key: 'refusal.exchange-refused', params: { detail: error.error } },
    ];
  }
  const text = messages(error);
  const detail = { detail: text };
  if (/"state"/.test(text))
    return [
      400,
      "the callback's state does not match this browser's sign-in: a forged or mixed-up callback. Start again.",
      { key: 'refusal.state' },
    ];
  if (/"iss"|issuer/.test(text))
    return [
      400,
      `the answer comes from an issuer other than the configured OIDC_ISSUER: ${text}`,
      { key: 'refusal.issuer', params: detail },
    ];
  if (/"nonce"/.test(text))
    return [
      400,
      "the ID token's nonce does not match this sign-in: the token was issued for another sign-in.",
      { key: 'refusal.nonce' },
    ];
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|timeout/i.test(text))
    return [
      502,
      `the identity provider cannot be reached: ${text}`,
      { key: 'refusal.provider-unreachable', params: detail },
    ];
  return [400, `the provider's answer failed a check: ${text}`, { key: 'refusal.check-failed', params: detail }];
}
