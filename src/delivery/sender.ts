/**
 * The outgoing HTTP of webhooks, behind an interface so tests and tools can replace it. The real
 * sender uses undici with a connector that resolves the host itself, vets every address with the
 * SSRF policy and dials the vetted address, so what was checked is what is connected to (a DNS
 * answer that changes in between cannot reach the inside). Redirects are never followed.
 */
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { ErrorClass } from './model.js';
import { type LookupFn, resolveAndCheck, SsrfBlockedError, UnresolvableHostError } from './ssrf.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type SendResult =
  | {
      kind: 'response';
      statusCode: number;
      headers: Record<string, string | string[] | undefined>;
      bodySnippet: string;
    }
  | { kind: 'error'; errorClass: Exclude<ErrorClass, 'http'>; message: string };

export interface WebhookSender {
  send(request: WebhookRequest): Promise<SendResult>;
  close(): Promise<void>;
}

export interface UndiciSenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Connections to one receiver origin at most (undici's per-origin pool size). */
  connectionsPerHost?: number | undefined;
  /** DNS lookup for the connect-time check; the system resolver by default. */
  lookup?: LookupFn | undefined;
}

/** Receivers' answers are kept for the attempt log up to this many bytes; the rest is discarded. */
export const RESPONSE_SNIPPET_BYTES = 4096;
const MAX_CONNECT_MS = 5000;

/** The attempt's whole time limit passed (waiting for a connection, sending and the answer). */
class AttemptTimeoutError extends Error {
  constructor() {
    super('no complete answer within the time limit');
    this.name = 'TimeoutError';
  }
}

const TARGET_CACHE_SIZE = 1000;

export class UndiciSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly targets = new Map<string, { origin: string; path: string }>();

  constructor(private readonly options: UndiciSenderOptions) {
    const base = buildConnector({ timeout: Math.min(MAX_CONNECT_MS, options.timeoutMs) });
    const connect: buildConnector.connector = options.allowPrivate
      ? base
      : (connectOptions, callback) => {
          resolveAndCheck(connectOptions.hostname, { allowPrivate: false }, options.lookup).then(
            ({ address }) => {
              // Dial the vetted address; TLS still verifies the certificate against the original name (SNI from `host`).
              const servername =
                connectOptions.servername ??
                (isIP(stripBrackets(connectOptions.hostname)) === 0
                  ? stripBrackets(connectOptions.hostname)
                  : undefined);
              base(
                { ...connectOptions, hostname: address, ...(servername === undefined ? {} : { servername }) },
                callback,
              );
            },
            (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
          );
        };
    // Keep-alive pools per origin; a new connection is vetted again, a pooled one was vetted when opened.
    // The pool size is the per-receiver cap: one receiver never sees more parallel requests than that.
    this.agent = new Agent({
      connect,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: options.connectionsPerHost ?? 32,
    });
  }

  /**
   * One POST through undici's dispatch API: the answer's status and headers, and at most
   * RESPONSE_SNIPPET_BYTES of its body, with no stream or abort signal made per request (with
   * `request()`, a Readable, its async iterator and `AbortSignal.timeout` cost about a third of the
   * worker's CPU per delivery). One timer bounds the whole attempt, waiting for a connection included.
   */
  send(webhook: WebhookRequest): Promise<SendResult> {
    return new Promise<SendResult>((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let statusCode = 0;
      let headers: Record<string, string | string[] | undefined> = {};
      let controller: Dispatcher.DispatchController | undefined;
      let timedOut = false;
      let settled = false;
      const finish = (result: SendResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const answered = (): void =>
        finish({
          kind: 'response',
          statusCode,
          headers,
          bodySnippet: Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8'),
        });
      const timer = setTimeout(() => {
        timedOut = true;
        controller?.abort(new AttemptTimeoutError());
        finish({ kind: 'error', ...classify(new AttemptTimeoutError(), true) });
      }, this.options.timeoutMs);
      try {
        const target = this.target(webhook.url);
        this.agent.dispatch(
          { origin: target.origin, path: target.path, method: 'POST', headers: webhook.headers, body: webhook.body },
          {
            onRequestStart: (started) => {
              controller = started;
              if (timedOut) started.abort(new AttemptTimeoutError());
            },
            onResponseStart: (_, code, responseHeaders) => {
              statusCode = code;
              headers = responseHeaders;
            },
            onResponseData: (reading, chunk) => {
              if (settled) return;
              chunks.push(chunk);
              size += chunk.length;
              // Enough for the attempt log: the rest is dropped without being downloaded.
              if (size >= RESPONSE_SNIPPET_BYTES) {
                answered();
                reading.abort(new Error('the rest of the answer is not read'));
              }
            },
            onResponseEnd: answered,
            onResponseError: (_, error) => finish({ kind: 'error', ...classify(error, timedOut) }),
          },
        );
      } catch (error) {
        finish({ kind: 'error', ...classify(error, timedOut) });
      }
    });
  }

  /** The origin and path of a notification URL, parsed once per URL (a subscription sends many). */
  private target(url: string): { origin: string; path: string } {
    let target = this.targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.targets.size >= TARGET_CACHE_SIZE) this.targets.delete(this.targets.keys().next().value ?? '');
      this.targets.set(url, target);
    }
    return target;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

const stripBrackets = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL']);
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_|HOSTNAME_MISMATCH)/;

/** Maps a failed request to an error class, looking through wrapped causes. */
export function classify(
  error: unknown,
  timedOut: boolean,
): { errorClass: Exclude<ErrorClass, 'http'>; message: string } {
  const chain: unknown[] = [];
  for (
    let current: unknown = error;
    current !== undefined && current !== null && chain.length < 5;
    current = current instanceof Error ? current.cause : undefined
  ) {
    chain.push(current);
  }
  const message = error instanceof Error ? error.message : String(error);
  for (const item of chain) {
    if (item instanceof SsrfBlockedError) return { errorClass: 'blocked', message: item.message };
    if (item instanceof UnresolvableHostError) return { errorClass: 'dns', message: item.message };
  }
  if (timedOut) return { errorClass: 'timeout', message: 'no complete answer within the time limit' };
  for (const item of chain) {
    if (!(item instanceof Error)) continue;
    const code = 'code' in item && typeof item.code === 'string' ? item.code : '';
    if (item.name === 'TimeoutError' || TIMEOUT_CODES.has(code))
      return { errorClass: 'timeout', message: item.message };
    if (DNS_CODES.has(code)) return { errorClass: 'dns', message: item.message };
    if (TLS_CODE.test(code) || /certificate|tls|ssl/i.test(item.message))
      return { errorClass: 'tls', message: item.message };
  }
  return { errorClass: 'connect', message };
}
