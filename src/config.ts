/**
 * The one place that reads the environment. Every value is parsed, typed and frozen once;
 * a bad value stops the process with a message naming the variable.
 */
import ipaddr from 'ipaddr.js';

import { availableParallelism } from 'node:os';

export type Role = 'api' | 'worker' | 'all';
export type SeedMode = 'demo' | 'none';
export type LogRequests = 'all' | 'errors' | 'none';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  /** Operator token for /api/admin/v1; undefined means "generate one on first start". */
  readonly adminToken: string | undefined;
  readonly tokenTtlSeconds: number;
  /** Delays in seconds between attempts: entry i is the wait after failed attempt i+1. */
  readonly webhookRetryScheduleSeconds: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookAllowPrivate: boolean;
  /** How long the previous webhook secret keeps signing after a rotation. */
  readonly webhookSecretOverlapSeconds: number;
  readonly webhookConcurrency: number;
  /** Connections one worker keeps open to one receiver origin at most; further requests queue. */
  readonly webhookConnectionsPerHost: number;
  readonly serviceFeeCents: number;
  readonly logLevel: string;
  /** Access log: every request, only those answered 4xx/5xx, or none. */
  readonly logRequests: LogRequests;
  readonly seed: SeedMode;
  readonly role: Role;
  /** Key for hashing client secrets; when unset a random key kept in the database is used. */
  readonly secretPepper: string | undefined;
  readonly publicBaseUrl: string | undefined;
  /** Requests per second per client and node on the bearer-guarded API; 0 turns the limit off. */
  readonly rateLimitRate: number;
  /** Requests a client may send at once after a quiet period (bucket capacity), per node. */
  readonly rateLimitBurst: number;
  /** Failed token requests allowed per (client id, source address) and window, per node. */
  readonly authFailuresPerClientAddress: number;
  /** Failed token requests allowed per source address (any client id) and window, per node. */
  readonly authFailuresPerAddress: number;
  /** The window in which the failure allowances above refill completely. */
  readonly authFailureWindowSeconds: number;
  /** Largest JSON request body. */
  readonly bodyLimitBytes: number;
  /** Largest request line + headers (Node's maxHeaderSize). */
  readonly maxHeaderBytes: number;
  /** Longest request URL (path and query). */
  readonly maxUrlLength: number;
  readonly maxSubscriptionsPerClient: number;
  /** Addresses/CIDRs (or loopback, linklocal, uniquelocal) whose X-Forwarded-* headers are believed; empty = none. */
  readonly trustedProxies: readonly string[];
  /** Browser origins allowed by CORS; empty = CORS off. `*` allows any origin (no credentials either way). */
  readonly corsOrigins: readonly string[];
  /** Whether CORS also opens the token endpoint to those origins (off: browsers never see a client secret flow). */
  readonly corsTokenEndpoint: boolean;
  /** Responses at least this large are compressed when the client asks (gzip, br). */
  readonly compressMinBytes: number;
  /** Most EANs the in-process offers read model keeps (least recently filled dropped first). */
  readonly offersCacheEans: number;
  /** How often a node reads the offers change log to drop what other nodes changed (staleness bound). */
  readonly offersSyncIntervalMs: number;
  /** Processes serving HTTP on one port (node:cluster); 1 = this process alone. */
  readonly clusterWorkers: number;
  /** Browser sessions (portal, console) end after this long without a request. */
  readonly sessionIdleSeconds: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function text(env: Env, key: string): string | undefined {
  const value = env[key]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = text(env, key);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(key, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(key, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, key: string, fallback: boolean): boolean {
  const raw = text(env, key)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(key, `expected true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, key);
  if (raw === undefined) return fallback;
  const match = allowed.find((candidate) => candidate === raw.toLowerCase());
  if (match === undefined) throw new ConfigError(key, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  return match;
}

function retrySchedule(env: Env): number[] {
  const raw = text(env, 'WEBHOOK_RETRY_SCHEDULE');
  if (raw === undefined) return [...DEFAULT_RETRY_SCHEDULE];
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) {
    throw new ConfigError(
      'WEBHOOK_RETRY_SCHEDULE',
      `expected seconds separated by commas (e.g. "5,300,1800"), got "${raw}"`,
    );
  }
  const seconds = parts.map(Number);
  if (seconds.length > 50) throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', 'at most 50 retries');
  return seconds;
}

function databaseUrl(env: Env): string {
  const raw = text(env, 'DATABASE_URL') ?? 'sqlite:./data/shelfmark.sqlite';
  if (raw.startsWith('sqlite:') || raw.startsWith('postgres://') || raw.startsWith('postgresql://')) return raw;
  throw new ConfigError(
    'DATABASE_URL',
    `expected sqlite:<path> or postgres://..., got "${raw.replace(/\/\/[^@]*@/, '//***@')}"`,
  );
}

function baseUrl(env: Env): string | undefined {
  const raw = text(env, 'PUBLIC_BASE_URL');
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return url.toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL', `expected an absolute http(s) URL, got "${raw}"`);
  }
}

function limits(env: Env) {
  const rateLimitRate = integer(env, 'RATE_LIMIT_RATE', 100, 0, 1_000_000);
  const maxHeaderBytes = integer(env, 'MAX_HEADER_BYTES', 16 * 1024, 1024, 1024 * 1024);
  const maxUrlLength = integer(env, 'MAX_URL_LENGTH', 8 * 1024, 256, 1024 * 1024);
  if (maxUrlLength >= maxHeaderBytes)
    throw new ConfigError('MAX_URL_LENGTH', `must be below MAX_HEADER_BYTES (${maxHeaderBytes}), got ${maxUrlLength}`);
  return {
    rateLimitRate,
    rateLimitBurst: integer(env, 'RATE_LIMIT_BURST', Math.max(1, rateLimitRate * 2), 1, 10_000_000),
    authFailuresPerClientAddress: integer(env, 'AUTH_FAILURES_PER_CLIENT_ADDRESS', 10, 1, 100_000),
    authFailuresPerAddress: integer(env, 'AUTH_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
    authFailureWindowSeconds: integer(env, 'AUTH_FAILURE_WINDOW_SECONDS', 600, 1, 86_400),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    maxHeaderBytes,
    maxUrlLength,
    maxSubscriptionsPerClient: integer(env, 'MAX_SUBSCRIPTIONS_PER_CLIENT', 100, 1, 1_000_000),
  };
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

function trustedProxies(env: Env): string[] {
  const raw = text(env, 'TRUSTED_PROXIES');
  if (raw === undefined) return [];
  const entries = raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const entry of entries) {
    if (PROXY_KEYWORDS.includes(entry)) continue;
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid)
      throw new ConfigError(
        'TRUSTED_PROXIES',
        `expected IP addresses, CIDR ranges or ${PROXY_KEYWORDS.join('/')}, separated by commas; got "${entry}"`,
      );
  }
  return entries;
}

function corsOrigins(env: Env): string[] {
  const raw = text(env, 'CORS_ORIGINS');
  if (raw === undefined) return [];
  const entries = raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const entry of entries) {
    if (entry === '*') continue;
    let origin: string;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = 'null';
    }
    // An origin is scheme://host[:port] exactly, as browsers send it in the Origin header.
    if (origin === 'null' || origin !== entry.replace(/\/$/, ''))
      throw new ConfigError(
        'CORS_ORIGINS',
        `expected origins like https://shop.example (or *), separated by commas; got "${entry}"`,
      );
  }
  return entries.map((entry) => entry.replace(/\/$/, ''));
}

/** CLUSTER_WORKERS: a number, or `auto` for one process per core. */
function clusterWorkers(env: Env): number {
  const raw = text(env, 'CLUSTER_WORKERS');
  if (raw?.toLowerCase() === 'auto') return Math.max(1, availableParallelism());
  return integer(env, 'CLUSTER_WORKERS', 1, 1, 256);
}

export function loadConfig(env: Env = process.env): Config {
  const adminToken = text(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  }
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  return Object.freeze({
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    databaseUrl: databaseUrl(env),
    adminToken,
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 3600, 1, 86400),
    webhookRetryScheduleSeconds: Object.freeze(retrySchedule(env)),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15000, 1, 120000),
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookSecretOverlapSeconds: integer(env, 'WEBHOOK_SECRET_OVERLAP_SECONDS', 86400, 0, 30 * 86400),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 32, 1, 1024),
    webhookConnectionsPerHost: integer(env, 'WEBHOOK_CONNECTIONS_PER_HOST', 32, 1, 1024),
    serviceFeeCents: integer(env, 'SERVICE_FEE_CENTS', 199, 0, 100000),
    logLevel,
    logRequests: oneOf<LogRequests>(env, 'LOG_REQUESTS', ['all', 'errors', 'none'], 'all'),
    seed: oneOf<SeedMode>(env, 'SEED', ['demo', 'none'], 'demo'),
    role: oneOf<Role>(env, 'ROLE', ['api', 'worker', 'all'], 'all'),
    secretPepper: text(env, 'SECRET_PEPPER'),
    publicBaseUrl: baseUrl(env),
    ...limits(env),
    trustedProxies: Object.freeze(trustedProxies(env)),
    corsOrigins: Object.freeze(corsOrigins(env)),
    corsTokenEndpoint: boolean(env, 'CORS_TOKEN_ENDPOINT', false),
    compressMinBytes: integer(env, 'COMPRESS_MIN_BYTES', 1024, 0, 100 * 1024 * 1024),
    offersCacheEans: integer(env, 'OFFERS_CACHE_EANS', 100_000, 0, 10_000_000),
    offersSyncIntervalMs: integer(env, 'OFFERS_SYNC_INTERVAL_MS', 1000, 50, 60_000),
    clusterWorkers: clusterWorkers(env),
    sessionIdleSeconds: integer(env, 'SESSION_IDLE_SECONDS', 1800, 60, 86400),
  });
}

/** A config for tests and tools: defaults plus overrides, without touching process.env. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({
    ...loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', SEED: 'none' }),
    ...overrides,
  });
}
