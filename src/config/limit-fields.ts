/**
 * The limits of the configuration schema (schema.ts spreads them in): rates, brute-force allowances,
 * request sizes and per-client caps. See docs/operating/limits.md.
 */
import { int } from './fields.js';

export const LIMIT_FIELDS = {
  rateLimitRate: int(
    'RATE_LIMIT_RATE',
    100,
    0,
    1_000_000,
    'requests per second per client on the bearer-guarded API, **per process** (see [Limits](limits.md)); `0` = off',
  ),
  rateLimitBurst: int(
    'RATE_LIMIT_BURST',
    200,
    1,
    10_000_000,
    'requests a client may send at once after a quiet period',
    { shown: '2 × `RATE_LIMIT_RATE` (at least 1)' },
  ),
  authFailuresPerClientAddress: int(
    'AUTH_FAILURES_PER_CLIENT_ADDRESS',
    10,
    1,
    100_000,
    'failed token requests per (client id, source address) and window',
  ),
  authFailuresPerAddress: int(
    'AUTH_FAILURES_PER_ADDRESS',
    100,
    1,
    1_000_000,
    'failed token requests per source address, whatever the client id, and window',
  ),
  authFailureWindowSeconds: int(
    'AUTH_FAILURE_WINDOW_SECONDS',
    600,
    1,
    86_400,
    'the window in which those failure allowances refill completely',
  ),
  bodyLimitBytes: int('BODY_LIMIT_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024, 'largest JSON request body (413)'),
  maxHeaderBytes: int(
    'MAX_HEADER_BYTES',
    16 * 1024,
    1024,
    1024 * 1024,
    "largest request line + headers, Node's `maxHeaderSize` (431)",
  ),
  maxUrlLength: int(
    'MAX_URL_LENGTH',
    8 * 1024,
    256,
    1024 * 1024,
    'longest URL, path and query (414); must be below `MAX_HEADER_BYTES`',
  ),
  maxSubscriptionsPerClient: int(
    'MAX_SUBSCRIPTIONS_PER_CLIENT',
    100,
    1,
    1_000_000,
    'webhook subscriptions one client may hold (409)',
  ),
  eventsMaxWaitingPerClient: int(
    'EVENTS_MAX_WAITING_PER_CLIENT',
    10,
    1,
    100_000,
    'long-poll requests of the event feed (`GET /api/lml/v1/events?wait=N`) one client may hold open at a time on one node; beyond it a 429',
  ),
};
