/**
 * The configuration as one TypeBox schema. Each property names its environment variable, default,
 * accepted values and meaning; from this one object come the `Config` type (`Static<>`, types.ts),
 * the defaults, the parsing and validation of the environment (load.ts) and the table in
 * docs/operating/configuration.md (table.ts, `npm run docs:config`).
 */
import { Type } from '@sinclair/typebox';
import { choice, flag, int, list, optionalText } from './fields.js';
import { LIMIT_FIELDS } from './limit-fields.js';
import { OIDC_FIELDS } from './oidc-fields.js';
import { RETENTION_FIELDS } from './retention-fields.js';

export const ConfigSchema = Type.Object({
  port: int('PORT', 3000, 0, 65535, 'HTTP port'),
  host: Type.String({
    env: 'HOST',
    parse: 'text',
    default: '127.0.0.1',
    description:
      'bind address: loopback only by default; `0.0.0.0` (every interface) in a container or on a server behind its proxy',
  }),
  demoClientPublic: flag(
    'DEMO_CLIENT_PUBLIC',
    "accept the demo client's published secret (smc_demo, README) while bound to a non-loopback address; refused there otherwise (a warning is logged at start)",
  ),
  databaseUrl: Type.String({
    env: 'DATABASE_URL',
    parse: 'databaseUrl',
    default: 'sqlite:./data/shelfmark.sqlite',
    accepts: '`sqlite:<path>`, `postgres://…`, `postgresql://…`',
    description: '`sqlite:<path>` (embedded) or `postgres://user@host/db`',
  }),
  adminToken: optionalText(
    'ADMIN_TOKEN',
    'text',
    'operator token for `/api/admin/v1` and the dashboard. Unset: generated on first start, printed once, only its hash kept; `npx shelfmark admin-token --reset` prints a new one (every node refuses the old one within 5 s)',
    { minLength: 16, shown: 'generated', accepts: 'text of at least 16 characters' },
  ),
  tokenTtlSeconds: int('TOKEN_TTL_SECONDS', 3600, 1, 86400, 'access-token lifetime'),
  webhookRetryScheduleSeconds: list(
    Type.Number({ minimum: 0 }),
    'WEBHOOK_RETRY_SCHEDULE',
    'secondsList',
    [5, 300, 1800, 7200, 18000, 36000, 36000],
    'seconds between attempts: entry i is the wait after failed attempt i+1',
    { accepts: 'seconds separated by commas (e.g. `5,300,1800`), at most 50' },
  ),
  webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 15000, 1, 120000, 'whole-attempt timeout'),
  webhookAllowPrivate: flag(
    'WEBHOOK_ALLOW_PRIVATE',
    'allow loopback/private receivers: turns the SSRF guard off (development only; a warning is logged at start)',
  ),
  webhookSecretOverlapSeconds: int(
    'WEBHOOK_SECRET_OVERLAP_SECONDS',
    86400,
    0,
    30 * 86400,
    'how long the previous webhook secret keeps signing after a rotation',
  ),
  subscriptionFailingAfterSeconds: int(
    'SUBSCRIPTION_FAILING_AFTER_SECONDS',
    3600,
    1,
    5 * 86400,
    "how long every attempt to a subscription must have failed before the client's other subscriptions get subscription.failing",
  ),
  webhookConcurrency: int(
    'WEBHOOK_CONCURRENCY',
    32,
    1,
    1024,
    'webhook requests in flight per worker (the worker claims up to as many again ahead)',
  ),
  webhookCompletionBacklog: Type.Union([Type.Integer({ minimum: 1, maximum: 4096 }), Type.Undefined()], {
    env: 'WEBHOOK_COMPLETION_BACKLOG',
    parse: 'integer',
    minimum: 1,
    maximum: 4096,
    shown: 'WEBHOOK_CONCURRENCY',
    accepts: 'a whole number from 1 to 4096',
    description:
      'finished webhook attempts a worker may hold before their outcome is written (group commit); sending pauses while it is full. A crash re-sends at most WEBHOOK_CONCURRENCY + this many attempts, with the same webhook-id',
  }),
  webhookConnectionsPerHost: int(
    'WEBHOOK_CONNECTIONS_PER_HOST',
    32,
    1,
    1024,
    'parallel requests one worker sends to one receiver origin at most; the rest wait their turn',
  ),
  webhookQueueThread: choice(
    'WEBHOOK_QUEUE_THREAD',
    ['auto', 'off'],
    'auto',
    "`auto`: in a `--role worker` process on a SQLite file, the delivery worker's claims and completions run on a thread of their own (a second connection), beside the sending instead of on its event loop; beside the API (`--role all`) they stay on the event loop, where the API's writes do not wait for theirs. `off`: always on the event loop. PostgreSQL's driver is asynchronous already and ignores it",
  ),
  workerHeartbeatSeconds: int(
    'WORKER_HEARTBEAT_SECONDS',
    10,
    1,
    3600,
    'how often each process running delivery workers (`--role worker` or `all`) records that it is alive; one not seen for three of these counts as gone (the overview, `shelfmark_workers_alive`). Set it alike on every node',
  ),
  serviceFeeCents: int('SERVICE_FEE_CENTS', 199, 0, 100000, "service fee added to the seller's price in public offers"),
  seed: choice(
    'SEED',
    ['demo', 'none'],
    'demo',
    '`demo` seeds demo data into an empty database; `none` never seeds (production)',
  ),
  role: choice('ROLE', ['api', 'worker', 'all'], 'all', 'what this process runs; also `--role` on the command line'),
  secretPepper: optionalText(
    'SECRET_PEPPER',
    'text',
    'key for hashing client secrets; set it to keep it out of the database',
    { shown: 'random, kept in the database', accepts: 'any text' },
  ),
  publicBaseUrl: optionalText(
    'PUBLIC_BASE_URL',
    'httpUrl',
    'external origin; the token issuer and the base of the metadata URLs. Unset: the origin of each request (see [Integrating](../integrating.md))',
    { shown: '—', accepts: 'an absolute http(s) URL' },
  ),
  trustedProxies: list(
    Type.String(),
    'TRUSTED_PROXIES',
    'proxyList',
    [],
    'proxies whose `X-Forwarded-*` headers are believed (issuer, client IP)',
    {
      shown: '— (none)',
      accepts: 'IP addresses, CIDR ranges or `loopback`, `linklocal`, `uniquelocal`, separated by commas',
    },
  ),
  corsOrigins: list(
    Type.String(),
    'CORS_ORIGINS',
    'originList',
    [],
    'browser origins allowed to call the API; `*` allows any origin (no credentials either way)',
    { shown: '— (CORS off)', accepts: 'origins like `https://shop.example` (or `*`), separated by commas' },
  ),
  corsTokenEndpoint: flag(
    'CORS_TOKEN_ENDPOINT',
    'also open the token endpoint to `CORS_ORIGINS` (off: browsers never see a client secret flow)',
  ),
  compressMinBytes: int(
    'COMPRESS_MIN_BYTES',
    1024,
    0,
    100 * 1024 * 1024,
    'smallest answer compressed (gzip/br) when the client asks',
  ),
  logLevel: choice('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino level', {
    exactCase: true,
  }),
  logRequests: choice(
    'LOG_REQUESTS',
    ['all', 'errors', 'none'],
    'all',
    'access log: `all` (a line as each request starts and ends), `errors` (one line per 4xx/5xx answer), `none`. At thousands of requests a second `all` writes megabytes of log per second and costs about a quarter of the throughput; busy deployments choose `errors` and read request rates from `/metrics`',
  ),
  clusterWorkers: int(
    'CLUSTER_WORKERS',
    1,
    1,
    256,
    'HTTP processes on the one port (`node:cluster`); `auto` = one per core. The primary migrates, seeds and runs the delivery worker',
    { parse: 'workers', accepts: 'whole number 1–256, or `auto`' },
  ),
  sqliteCacheMib: int(
    'SQLITE_CACHE_MIB',
    2,
    1,
    4096,
    "SQLite's page cache per connection, in MiB (2 is SQLite's own default; the operating system caches the file as well). Raise it when the often-read part of a large database does not fit; each MiB stays resident once filled",
  ),
  heapGrowthPercent: int(
    'HEAP_GROWTH_PERCENT',
    50,
    0,
    1000,
    "how far the JavaScript heap may grow past what the last full garbage collection kept before the next one; keeps RSS flat under sustained load (V8's own factor reaches 300 % on hosts with more than about 2 GiB). `0` = V8's own policy",
  ),
  offersSyncIntervalMs: int(
    'OFFERS_SYNC_INTERVAL_MS',
    1000,
    50,
    60_000,
    'how often a process reads the offers change log; the most another process or node can serve an outdated offer (PostgreSQL: normally at commit, through `NOTIFY`)',
  ),
  offersCacheEans: int(
    'OFFERS_CACHE_EANS',
    100_000,
    0,
    10_000_000,
    'most EANs the in-memory offers read model holds (about 1 KiB of heap each at two offers an EAN: 100,000 hold ~90 MiB; `0` turns it off: every call queries)',
  ),
  ...LIMIT_FIELDS,
  sessionIdleSeconds: int(
    'SESSION_IDLE_SECONDS',
    1800,
    60,
    86400,
    'browser sessions (partner portal, operator console) end after this long without a request',
  ),
  ...RETENTION_FIELDS,
  ...OIDC_FIELDS,
  testHoldEventsMs: Type.Union([Type.Integer({ minimum: 1, maximum: 10_000 }), Type.Undefined()], {
    env: 'SHELFMARK_TEST_HOLD_EVENTS_MS',
    parse: 'integer',
    minimum: 1,
    maximum: 10_000,
    shown: '— (off)',
    accepts: 'a whole number from 1 to 10000',
    description:
      'a test hook, never for production: every transaction that recorded events waits a random 0 to this many ms before it commits, so commits land in another order than the events drew their feed positions in',
  }),
});
