/**
 * Access tokens, fetched lazily from GET /api/auth/token (HTTP Basic), cached, refreshed shortly before
 * they expire, and fetched once for any number of concurrent callers (single flight).
 */
import { ApiError, AuthenticationError, ShelfmarkError } from './errors.js';
import type { CallOptions, Transport } from './transport.js';
import type { ProblemDocument, TokenResponse } from './types.js';

export interface TokenSourceOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  transport: Transport;
  /** Milliseconds since the epoch; injected for tests. */
  now: () => number;
  /** Refresh this long before expiry; default min(60 s, 10 % of the lifetime). */
  refreshMarginSeconds?: number;
}

interface Cached {
  token: string;
  refreshAt: number;
}

/** btoa works on Latin-1 only, so the UTF-8 bytes go through a binary string first. */
const base64Utf8 = (text: string): string =>
  btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''));

/** Waits for a shared promise but lets one caller give up through its own signal. */
function withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class TokenSource {
  private cached: Cached | undefined;
  private inflight: Promise<string> | undefined;
  declare private readonly authorization: string;
  private readonly options: Omit<TokenSourceOptions, 'clientSecret'>;

  constructor(options: TokenSourceOptions) {
    const { clientSecret, ...rest } = options;
    this.options = rest;
    // Kept only as the header value, and hidden from inspection and JSON: the secret never shows in a log.
    Object.defineProperty(this, 'authorization', {
      enumerable: false,
      value: `Basic ${base64Utf8(`${options.clientId}:${clientSecret}`)}`,
    });
  }

  /** A valid token: the cached one, or one fresh fetch shared by every concurrent caller. */
  async token(options: CallOptions = {}): Promise<string> {
    const cached = this.cached;
    if (cached !== undefined && this.options.now() < cached.refreshAt) return cached.token;
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return withSignal(this.inflight, options.signal);
  }

  /** Drops a token the service refused, unless a newer one replaced it meanwhile. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async fetchToken(): Promise<string> {
    const requestedAt = this.options.now();
    const response = await this.options.transport.send({
      method: 'GET',
      url: this.options.tokenUrl,
      headers: { authorization: this.authorization, accept: 'application/json' },
      idempotent: true,
    });
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const body: unknown = await response.json().catch(() => undefined);
    if (response.status === 401 || response.status === 400) {
      const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      const error =
        typeof fields.error === 'string'
          ? fields.error
          : response.status === 401
            ? 'invalid_client'
            : 'invalid_request';
      const description = typeof fields.error_description === 'string' ? fields.error_description : undefined;
      throw new AuthenticationError(response.status, error, description, this.options.clientId, requestId);
    }
    if (!response.ok)
      throw new ApiError(
        response.status,
        typeof body === 'object' && body !== null ? (body as ProblemDocument) : {},
        requestId,
      );
    const issued = body as Partial<TokenResponse> | undefined;
    if (typeof issued?.access_token !== 'string' || typeof issued.expires_in !== 'number') {
      throw new ShelfmarkError('the token endpoint answered without access_token/expires_in');
    }
    const lifetimeMs = issued.expires_in * 1000;
    const marginMs =
      this.options.refreshMarginSeconds === undefined
        ? Math.min(60_000, lifetimeMs * 0.1)
        : this.options.refreshMarginSeconds * 1000;
    // Counted from when the request left, so a slow answer never makes the token look younger than it is.
    this.cached = { token: issued.access_token, refreshAt: requestedAt + lifetimeMs - marginMs };
    return issued.access_token;
  }
}
