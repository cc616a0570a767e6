/**
 * Idempotency-Key for POST (the IETF httpapi draft, as Stripe and others implement it): the first
 * request with a key runs and its answer is remembered for 24 hours per owner; the same key with the
 * same request replays that answer; the same key with another request is a 422; a key whose first
 * request is still running is a 409. Answers of 5xx are not remembered, so a retry runs again.
 * Answers that carry a secret (client credentials, a new webhook secret: marked cache-control:
 * no-store) are remembered without their body: a replay is a 409 instead of a second copy of the secret.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { Problem } from '../problems/catalogue.js';
import type { IdempotencyStore } from './store.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** A claim without an answer for this long belongs to a request that died (crash, lost connection). */
export const ABANDONED_AFTER_MS = 60_000;
const PURGE_EVERY_MS = 60_000;
const KEY = /^[\x21-\x7e]{1,255}$/;
/** An Idempotency-Key as the API document states it: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = KEY.source;

export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** Null for an answer that carried a secret (cache-control: no-store): never written to the database. */
  body: string | null;
}

export type Begin = { kind: 'run' } | { kind: 'replay'; answer: StoredAnswer };

export const requestHash = (method: string, path: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');

export class IdempotencyService {
  private lastPurge = 0;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
  ) {}

  static validKey(key: string): boolean {
    return KEY.test(key);
  }

  async begin(owner: string, key: string, hash: string): Promise<Begin> {
    const now = this.clock.now();
    await this.purge(now);
    const row = { owner, key, request_hash: hash, created_at: now, expires_at: now + IDEMPOTENCY_TTL_MS };
    if (await this.store.claim(row)) return { kind: 'run' };
    await this.store.dropStale(owner, key, now, now - ABANDONED_AFTER_MS);
    if (await this.store.claim(row)) return { kind: 'run' };
    const existing = await this.store.find(owner, key);
    // Deleted between the two statements by a concurrent purge: treat as in use; the retry will run.
    if (existing === undefined || existing.request_hash !== hash) {
      if (existing === undefined) throw new Problem('idempotency-key-in-use', 'retry with the same key');
      throw new Problem(
        'idempotency-key-reused',
        'this Idempotency-Key was used for a different request in the last 24 hours; use a new key for a new request',
      );
    }
    if (existing.status_code === null)
      throw new Problem(
        'idempotency-key-in-use',
        'the first request with this Idempotency-Key has not finished; retry shortly',
        {},
        { 'retry-after': '1' },
      );
    if (existing.response_body === null) {
      throw new Problem(
        'conflict',
        'the request with this Idempotency-Key already ran; its answer carried a secret, which is shown once and never stored',
      );
    }
    return {
      kind: 'replay',
      answer: {
        statusCode: existing.status_code,
        headers: JSON.parse(existing.response_headers ?? '{}') as Record<string, string>,
        body: existing.response_body,
      },
    };
  }

  async finish(owner: string, key: string, answer: StoredAnswer): Promise<void> {
    if (answer.statusCode >= 500) {
      await this.store.release(owner, key);
      return;
    }
    await this.store.complete(owner, key, answer.statusCode, JSON.stringify(answer.headers), answer.body);
  }

  private async purge(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS && now >= this.lastPurge) return;
    this.lastPurge = now;
    await this.store.purgeExpired(now);
  }
}
