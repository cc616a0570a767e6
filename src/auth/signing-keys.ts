/**
 * Token signing keys live in the database so every node signs and verifies with the same set.
 * A key signs for KEY_SIGNING_DAYS, then keeps verifying until the longest token it signed expires.
 */
import { createPrivateKey, type KeyObject as NodeKeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../clock.js';
import type { Executor } from '../db/database.js';
import { ids } from '../ids.js';

export const TOKEN_ALG = 'ES256';
const KEY_SIGNING_MS = 30 * 86_400_000;
/** How long an unknown kid blocks another database look-up, so forged kids cannot hammer the database. */
const RELOAD_COOLDOWN_MS = 1000;

type KeyObject = Awaited<ReturnType<typeof importJWK>>;

/** A loaded key: what signs a token and what verifies it. */
export interface SigningKey {
  kid: string;
  retireAt: number;
  expiresAt: number;
  publicJwk: JWK;
  publicKey: KeyObject;
  /** node:crypto's key: signing through it directly costs half of a WebCrypto sign (see token-service.ts). */
  signingKey: NodeKeyObject;
  /** The base64url JWS header every token of this key carries: {alg, kid, typ}. */
  encodedHeader: string;
}

export class SigningKeys {
  private keys = new Map<string, SigningKey>();
  private lastLoad = 0;
  private pendingReload: Promise<void> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly maxTokenTtlMs: number,
  ) {}

  /** The key to sign new tokens with; creates one when none is active. */
  async active(): Promise<SigningKey> {
    const now = this.clock.now();
    let best = this.newestActive(now);
    if (best !== undefined) return best;
    await this.reload();
    best = this.newestActive(now);
    if (best !== undefined) return best;
    await this.create(now);
    await this.reload();
    best = this.newestActive(now);
    if (best === undefined) throw new Error('no signing key after creating one');
    return best;
  }

  /**
   * The public key for a kid, or undefined when the kid is unknown or past its verification life. An
   * unknown kid re-reads the keys, at most once per RELOAD_COOLDOWN_MS: lookups within the cooldown
   * wait for that one shared re-read instead of failing, so a key another node created a moment ago
   * (two nodes or cluster children starting together) verifies, while forged kids still cost the
   * database one query a second at most.
   */
  async verificationKey(kid: string): Promise<KeyObject | undefined> {
    let key = this.keys.get(kid);
    if (key === undefined) {
      await this.reloadThrottled();
      key = this.keys.get(kid);
    }
    return key !== undefined && key.expiresAt > this.clock.now() ? key.publicKey : undefined;
  }

  private reloadThrottled(): Promise<void> {
    this.pendingReload ??= (async () => {
      try {
        const wait = Math.min(RELOAD_COOLDOWN_MS, this.lastLoad + RELOAD_COOLDOWN_MS - this.clock.now());
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
        await this.reload();
      } finally {
        this.pendingReload = undefined;
      }
    })();
    return this.pendingReload;
  }

  /** Public keys still able to verify, for /.well-known/jwks.json. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.active();
    const now = this.clock.now();
    return { keys: [...this.keys.values()].filter((key) => key.expiresAt > now).map((key) => key.publicJwk) };
  }

  /** The loaded key that signs at `now`, without reading the database; undefined: call active(). */
  signingNow(now: number): SigningKey | undefined {
    return this.newestActive(now);
  }

  private newestActive(now: number): SigningKey | undefined {
    let best: SigningKey | undefined;
    for (const key of this.keys.values()) {
      if (key.retireAt > now && (best === undefined || key.retireAt > best.retireAt)) best = key;
    }
    return best;
  }

  private async create(now: number): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
    const kid = ids.signingKey();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: TOKEN_ALG, use: 'sig' };
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: TOKEN_ALG };
    await this.db
      .insertInto('signing_keys')
      .values({
        kid,
        alg: TOKEN_ALG,
        private_jwk: JSON.stringify(privateJwk),
        public_jwk: JSON.stringify(publicJwk),
        created_at: now,
        retire_at: now + KEY_SIGNING_MS,
        expires_at: now + KEY_SIGNING_MS + this.maxTokenTtlMs,
      })
      .execute();
  }

  private async reload(): Promise<void> {
    const now = this.clock.now();
    this.lastLoad = now;
    const rows = await this.db.selectFrom('signing_keys').selectAll().where('expires_at', '>', now).execute();
    const next = new Map<string, SigningKey>();
    for (const row of rows) {
      const known = this.keys.get(row.kid);
      if (known !== undefined) {
        next.set(row.kid, known);
        continue;
      }
      const publicJwk = JSON.parse(row.public_jwk) as JWK;
      next.set(row.kid, {
        kid: row.kid,
        retireAt: row.retire_at,
        expiresAt: row.expires_at,
        publicJwk,
        publicKey: await importJWK(publicJwk, TOKEN_ALG),
        signingKey: createPrivateKey({ key: JSON.parse(row.private_jwk) as JWK & { kty: string }, format: 'jwk' }),
        encodedHeader: Buffer.from(JSON.stringify({ alg: TOKEN_ALG, kid: row.kid, typ: 'at+jwt' })).toString(
          'base64url',
        ),
      });
    }
    this.keys = next;
  }
}
