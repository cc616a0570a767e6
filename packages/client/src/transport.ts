/**
 * One HTTP exchange with timeouts, cancellation and retries. Only calls marked idempotent (the GETs)
 * are retried, on 5xx, 429 and network failures, with exponential backoff and full jitter; a
 * Retry-After header can only lengthen the wait, and one longer than maxRetryAfterMs ends the retries.
 */
import { NetworkError, TimeoutError } from './errors.js';

export interface RetryOptions {
  /** Extra attempts after the first (default 2). 0 disables retries. */
  maxRetries?: number;
  /** First backoff step in ms (default 200); doubles per attempt. */
  baseDelayMs?: number;
  /** Cap of one backoff step in ms (default 5000). */
  maxDelayMs?: number;
  /** A Retry-After longer than this (default 60000 ms) is not waited for: the error is raised instead. */
  maxRetryAfterMs?: number;
}

export interface TransportOptions {
  fetch?: typeof fetch;
  /** Per attempt, in ms (default 30000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  userAgent?: string;
  /** For tests: how to wait, and the jitter source. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
}

export interface Exchange {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Safe to send again: only then is a 5xx/429/network failure retried. */
  idempotent: boolean;
}

const RETRYABLE = (status: number): boolean => status === 429 || status >= 500;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export class Transport {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly retry: Required<RetryOptions>;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly userAgent: string | undefined;

  constructor(options: TransportOptions = {}) {
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = { maxRetries: 2, baseDelayMs: 200, maxDelayMs: 5000, maxRetryAfterMs: 60_000, ...options.retry };
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
    this.userAgent = options.userAgent;
  }

  /** Sends the exchange; answers the final Response (success or not). Throws only for timeouts, aborts and network failures. */
  async send(exchange: Exchange, options: CallOptions = {}): Promise<Response> {
    const retries = exchange.idempotent ? this.retry.maxRetries : 0;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.attempt(exchange, options);
      } catch (error) {
        if (!(error instanceof NetworkError) || attempt >= retries) throw error;
        await this.sleep(this.backoff(attempt), options.signal);
        continue;
      }
      if (!RETRYABLE(response.status) || attempt >= retries) return response;
      const backoff = this.backoff(attempt);
      const after = retryAfterMs(response.headers.get('retry-after'));
      if (after !== undefined && after > this.retry.maxRetryAfterMs) return response;
      // Free the connection before waiting.
      await response.body?.cancel().catch(() => undefined);
      await this.sleep(Math.max(backoff, after ?? 0), options.signal);
    }
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return Math.round(ceiling * this.random());
  }

  private async attempt(exchange: Exchange, options: CallOptions): Promise<Response> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
    const headers = { ...exchange.headers, ...(this.userAgent === undefined ? {} : { 'user-agent': this.userAgent }) };
    try {
      return await this.fetchImpl(exchange.url, {
        method: exchange.method,
        headers,
        signal,
        ...(exchange.body === undefined ? {} : { body: exchange.body }),
      });
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      if (timeout.aborted)
        throw new TimeoutError(`${exchange.method} ${exchange.url} timed out after ${timeoutMs} ms`, { cause: error });
      throw new NetworkError(
        `${exchange.method} ${exchange.url} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
}
