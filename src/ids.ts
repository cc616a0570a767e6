/**
 * Every identifier and secret is minted here, recognisable by its prefix, from the OS CSPRNG.
 */
import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Each byte's two lower-case hex digits. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A source of random bytes, refilled from the CSPRNG `size` bytes at a time. */
function byteSource(size: number): () => number {
  const buffer = Buffer.alloc(size);
  let offset = size;
  return () => {
    if (offset === size) {
      randomFillSync(buffer);
      offset = 0;
    }
    return buffer[offset++] as number;
  };
}

/**
 * Ids draw from a pool refilled 4 KiB at a time, as node's randomInt() and randomUUID() do: one CSPRNG
 * call per id was a measurable share of a delivery's CPU (docs/performance.md#decisions).
 * Secrets never come from the pool, so no secret sits in memory before it is minted.
 */
const pooledByte = byteSource(4096);

/** `length` uniformly random base62 characters (bytes from 248 up are skipped, so no character is likelier). */
function base62(length: number, nextByte: () => number = pooledByte): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Random base62 characters for a secret, from a CSPRNG read of its own. */
const secretBase62 = (length: number): string => base62(length, byteSource(length + 16));

/** Milliseconds since the epoch in 8 base62 characters; base62 in this alphabet sorts like the number. */
const TIME_CHARS = 8;
function base62Time(ms: number): string {
  let out = '';
  for (let rest = Math.floor(ms); out.length < TIME_CHARS; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out;
}

/** 25 characters like the real system's cuid-style ids: prefix + random base62. */
const prefixed = (prefix: string): string => prefix + base62(25 - prefix.length);

/**
 * Like prefixed(), but the 8 characters after the prefix are the creation time and the 13 after them
 * random (77 bits): ids minted later sort later, as cuid's and UUIDv7's do. Used for the rows written
 * at event rate (events, deliveries, attempts), so an insert lands at the right edge of the key index
 * instead of on a random page, and a group commit rewrites a few pages instead of one per row. Draining
 * on SQLite, the worker spent clearly less CPU a delivery than with random ids; PostgreSQL's drain did
 * not change (docs/performance.md#decisions).
 */
const timeOrdered = (prefix: string): string =>
  prefix + base62Time(Date.now()) + base62(25 - prefix.length - TIME_CHARS);

export const ids = {
  client: () => prefixed('cli_'),
  subscription: () => prefixed('sub_'),
  delivery: () => timeOrdered('dlv_'),
  event: () => timeOrdered('evt_'),
  attempt: () => timeOrdered('att_'),
  /** Audit records (src/audit/). */
  audit: () => timeOrdered('aud_'),
  signingKey: () => prefixed('key_'),
  /** A process running delivery workers, as its heartbeat names it. */
  worker: () => prefixed('wrk_'),
  /**
   * School, list and offer identifiers: 32 lower-case hex characters, as the webhook payload carries.
   * Public, so from the pool: a bulk import mints one per offer (docs/performance.md#decisions).
   */
  resourceIdentifier: () => {
    let out = '';
    for (let i = 0; i < 16; i++) out += HEX[pooledByte()];
    return out;
  },
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
  clientSecret: () => `sms_${secretBase62(43)}`,
  /** Standard Webhooks format: whsec_ + base64 of the 32-byte HMAC key. */
  webhookSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
  adminToken: () => `sma_${secretBase62(43)}`,
  pepper: () => randomBytes(32).toString('base64'),
};

export const isResourceIdentifier = (value: string): boolean => /^[0-9a-f]{32}$/.test(value);
