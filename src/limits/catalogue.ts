/**
 * Every limit the server enforces, once: what it bounds, the setting or constant that sets it, where it
 * is counted and how it answers. It lives in limits/ because that folder sits above the configuration,
 * the problem catalogue and the vocabulary, so it can name their values instead of copying them; the
 * numbers stay with the code that enforces them. docs/operating/limits.md renders its table from here.
 */
import { fieldOf } from '../config/load.js';
import type { ConfigKey } from '../config/types.js';
import type { ProblemCode } from '../problems/catalogue.js';
import { MAX_EANS_PER_QUERY } from '../vocabulary/ean.js';
import { TOO_MANY_ATTEMPTS } from './auth-failures.js';
import { MAX_PATH_SEGMENT, TOKEN_FORM_LIMIT_BYTES } from './http-limits.js';

/** How a number reads: bytes in KiB or MiB, seconds in minutes or hours where they divide evenly. */
export type LimitUnit = 'bytes' | 'seconds' | 'per second' | 'characters' | 'distinct' | 'count';

export type LimitAmount =
  /** A configuration field: its variable, and its default or the `shown` text of the field. */
  | { readonly setting: ConfigKey; readonly unit: LimitUnit }
  /** A constant of the server's code: not configurable. */
  | { readonly fixed: number; readonly unit: LimitUnit; readonly why?: string }
  /** No number of its own (a refusal, or a limit shared with another row). */
  | { readonly words: string };

export type LimitAnswer =
  /** A problem document; its status is the problem catalogue's. */
  | { readonly problem: ProblemCode; readonly retryAfter?: true }
  /** The token endpoint's RFC 6749 shape. */
  | { readonly oauth: string; readonly status: number; readonly retryAfter?: true }
  /** Not refused at all. */
  | { readonly words: string };

export type LimitScope = 'per process' | 'per worker' | 'request' | 'database, all nodes';

export interface Limit {
  /** What is counted or bounded. */
  readonly limit: string;
  readonly amounts: readonly LimitAmount[];
  readonly scope: LimitScope;
  readonly answer: LimitAnswer;
}

export const LIMITS: readonly Limit[] = [
  {
    limit: 'requests per client (token bucket, bearer-guarded `/api/v1`, `/api/lml/v1`)',
    amounts: [
      { setting: 'rateLimitRate', unit: 'per second' },
      { setting: 'rateLimitBurst', unit: 'count' },
    ],
    scope: 'per process',
    answer: { problem: 'rate-limited', retryAfter: true },
  },
  {
    limit: 'failed token requests per (client id, source address)',
    amounts: [
      { setting: 'authFailuresPerClientAddress', unit: 'count' },
      { setting: 'authFailureWindowSeconds', unit: 'seconds' },
    ],
    scope: 'per process',
    answer: { oauth: TOO_MANY_ATTEMPTS, status: 429, retryAfter: true },
  },
  {
    limit: 'failed token requests per source address',
    amounts: [{ setting: 'authFailuresPerAddress', unit: 'count' }],
    scope: 'per process',
    answer: { oauth: TOO_MANY_ATTEMPTS, status: 429, retryAfter: true },
  },
  {
    limit: 'failed operator-console sign-ins per source address',
    amounts: [{ words: 'the two allowances above, for the pseudo-client `(console)`' }],
    scope: 'per process',
    answer: { problem: 'rate-limited', retryAfter: true },
  },
  {
    limit: 'waiting event-feed requests per client (`GET /api/lml/v1/events?wait=N`)',
    amounts: [{ setting: 'eventsMaxWaitingPerClient', unit: 'count' }],
    scope: 'per process',
    answer: { problem: 'rate-limited', retryAfter: true },
  },
  {
    limit: 'JSON body',
    amounts: [{ setting: 'bodyLimitBytes', unit: 'bytes' }],
    scope: 'request',
    answer: { problem: 'body-too-large' },
  },
  {
    limit: 'token request form body',
    amounts: [{ fixed: TOKEN_FORM_LIMIT_BYTES, unit: 'bytes' }],
    scope: 'request',
    answer: { oauth: 'invalid_request', status: 400 },
  },
  {
    limit: 'request line + headers',
    amounts: [{ setting: 'maxHeaderBytes', unit: 'bytes' }],
    scope: 'request',
    answer: { problem: 'headers-too-large' },
  },
  {
    limit: 'URL, path and query',
    amounts: [{ setting: 'maxUrlLength', unit: 'bytes' }],
    scope: 'request',
    answer: { problem: 'uri-too-long' },
  },
  {
    limit: 'one path segment, decoded',
    amounts: [{ fixed: MAX_PATH_SEGMENT, unit: 'characters', why: 'the longest OIDC `sub`' }],
    scope: 'request',
    answer: { problem: 'uri-too-long' },
  },
  {
    limit: 'EANs per offers call',
    amounts: [{ fixed: MAX_EANS_PER_QUERY, unit: 'distinct', why: 'part of the API contract' }],
    scope: 'request',
    answer: { problem: 'validation-failed' },
  },
  {
    limit: 'subscriptions per client',
    amounts: [{ setting: 'maxSubscriptionsPerClient', unit: 'count' }],
    scope: 'database, all nodes',
    answer: { problem: 'subscription-limit' },
  },
  {
    limit: 'parallel webhook requests per receiver origin',
    amounts: [{ setting: 'webhookConnectionsPerHost', unit: 'count' }],
    scope: 'per worker',
    answer: { words: 'queued, not refused' },
  },
  {
    limit: 'NUL characters in a URL',
    amounts: [{ words: 'refused' }],
    scope: 'request',
    answer: { problem: 'malformed-request' },
  },
  {
    limit: 'NUL characters in a JSON string',
    amounts: [{ words: 'refused' }],
    scope: 'request',
    answer: { problem: 'malformed-body' },
  },
];

function evenly(value: number, steps: readonly (readonly [number, string])[], fallback: string): string {
  for (const [size, name] of steps) if (value >= size && value % size === 0) return `${value / size} ${name}`;
  return `${value} ${fallback}`;
}

/** A number of a limit as the docs and the problem pages state it. */
export function amountOf(value: number, unit: LimitUnit): string {
  switch (unit) {
    case 'bytes':
      return evenly(
        value,
        [
          [1024 * 1024, 'MiB'],
          [1024, 'KiB'],
        ],
        'bytes',
      );
    case 'seconds':
      return evenly(
        value,
        [
          [3600, 'h'],
          [60, 'min'],
        ],
        's',
      );
    case 'per second':
      return `${value} /s`;
    case 'count':
      return String(value);
    default:
      return `${value} ${unit}`;
  }
}

/** A setting's default as a reader sees it: the `shown` text of its field, or its value in its unit. */
export function defaultOf(setting: ConfigKey, unit: LimitUnit): string {
  const field = fieldOf(setting) as ReturnType<typeof fieldOf> & { default?: unknown };
  return field.shown ?? amountOf(Number(field.default), unit);
}
