/**
 * Every identifier and secret is minted here, recognisable by its prefix, from the OS CSPRNG.
 */
import { randomBytes, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** 25 characters like the real system's cuid-style ids: prefix + random base62. */
const prefixed = (prefix: string): string => prefix + base62(25 - prefix.length);

export const ids = {
  client: () => prefixed('cli_'),
  subscription: () => prefixed('sub_'),
  delivery: () => prefixed('dlv_'),
  event: () => prefixed('evt_'),
  attempt: () => prefixed('att_'),
  signingKey: () => prefixed('key_'),
  /** School and list identifiers: 32 lower-case hex characters, as the webhook payload carries. */
  resourceIdentifier: () => randomBytes(16).toString('hex'),
  /** Short, URL-safe, upper-case list code for deep links and QR codes, e.g. BL4K7Q2M. */
  listSlug: () => {
    const alphabet = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
    let out = 'BL';
    for (let i = 0; i < 6; i++) out += alphabet[randomInt(alphabet.length)];
    return out;
  },
};

export const secrets = {
  /** Public client identifier. */
  clientId: () => `smc_${base62(22)}`,
  /** ~256 bits; shown once, stored only as a keyed hash. */
  clientSecret: () => `sms_${base62(43)}`,
  /** Standard Webhooks format: whsec_ + base64 of the 32-byte HMAC key. */
  webhookSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
  adminToken: () => `sma_${base62(43)}`,
  pepper: () => randomBytes(32).toString('base64'),
};

export const isResourceIdentifier = (value: string): boolean => /^[0-9a-f]{32}$/.test(value);
