import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      port: 3000,
      host: '127.0.0.1',
      demoClientPublic: false,
      databaseUrl: 'sqlite:./data/shelfmark.sqlite',
      adminToken: undefined,
      tokenTtlSeconds: 3600,
      webhookRetryScheduleSeconds: [5, 300, 1800, 7200, 18000, 36000, 36000],
      webhookTimeoutMs: 15000,
      workerHeartbeatSeconds: 10,
      webhookAllowPrivate: false,
      webhookSecretOverlapSeconds: 86400,
      webhookConcurrency: 32,
      webhookConnectionsPerHost: 32,
      webhookQueueThread: 'auto',
      serviceFeeCents: 199,
      logLevel: 'info',
      logRequests: 'all',
      seed: 'demo',
      role: 'all',
      secretPepper: undefined,
      publicBaseUrl: undefined,
      offersCacheEans: 100_000,
      offersSyncIntervalMs: 1000,
      clusterWorkers: 1,
      sqliteCacheMib: 2,
      heapGrowthPercent: 50,
      // Limits.
      rateLimitRate: 100,
      rateLimitBurst: 200,
      authFailuresPerClientAddress: 10,
      authFailuresPerAddress: 100,
      authFailureWindowSeconds: 600,
      bodyLimitBytes: 262144,
      maxHeaderBytes: 16384,
      maxUrlLength: 8192,
      maxSubscriptionsPerClient: 100,
      trustedProxies: [],
      corsOrigins: [],
      corsTokenEndpoint: false,
      compressMinBytes: 1024,
      sessionIdleSeconds: 1800,
      subscriptionFailingAfterSeconds: 3600,
      // Retention.
      deliveryRetentionDays: 30,
      failedDeliveryRetentionDays: 90,
      eventRetentionDays: undefined,
      responseBodyRetentionDays: 7,
      deliveryStatsRetentionDays: 90,
      pruneIntervalSeconds: 3600,
      pruneBatchSize: 1000,
      prunePauseMs: 100,
      // Audit log.
      auditRetentionDays: 400,
      // Event feed.
      eventsMaxWaitingPerClient: 10,
      // Delivery completions awaiting their batch (default: the concurrency).
      webhookCompletionBacklog: undefined,
      // Operator sign-in: off until OIDC_ISSUER is set.
      oidcIssuer: undefined,
      oidcClientId: undefined,
      oidcClientSecret: undefined,
      oidcScopes: 'openid email profile',
      oidcRedirectUri: undefined,
      oidcDisplayName: undefined,
      oidcRoleClaim: undefined,
      oidcRoleMap: [],
      operatorAdmins: [],
      oidcDefaultRole: 'none',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u@db/shelfmark',
      ADMIN_TOKEN: 'a-long-admin-token-value',
      TOKEN_TTL_SECONDS: '600',
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3.5',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SERVICE_FEE_CENTS: '0',
      LOG_LEVEL: 'warn',
      SEED: 'none',
      ROLE: 'worker',
      PUBLIC_BASE_URL: 'https://api.example.org/',
      WEBHOOK_CONNECTIONS_PER_HOST: '4',
      OFFERS_CACHE_EANS: '0',
      OFFERS_SYNC_INTERVAL_MS: '250',
      CLUSTER_WORKERS: '3',
      HEAP_GROWTH_PERCENT: '0',
    });
    expect(config).toMatchObject({
      webhookConnectionsPerHost: 4,
      offersCacheEans: 0,
      offersSyncIntervalMs: 250,
      clusterWorkers: 3,
      heapGrowthPercent: 0,
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://u@db/shelfmark',
      adminToken: 'a-long-admin-token-value',
      tokenTtlSeconds: 600,
      webhookRetryScheduleSeconds: [1, 2, 3.5],
      webhookTimeoutMs: 5000,
      webhookAllowPrivate: true,
      serviceFeeCents: 0,
      logLevel: 'warn',
      seed: 'none',
      role: 'worker',
      publicBaseUrl: 'https://api.example.org',
    });
  });

  it.each([
    ['PORT', 'abc', 'PORT: expected a whole number, got "abc"'],
    ['PORT', '70000', 'PORT: must be between 0 and 65535, got 70000'],
    ['TOKEN_TTL_SECONDS', '0', 'TOKEN_TTL_SECONDS: must be between 1 and 86400, got 0'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe', 'WEBHOOK_ALLOW_PRIVATE: expected true or false, got "maybe"'],
    [
      'WEBHOOK_RETRY_SCHEDULE',
      '5,soon',
      'WEBHOOK_RETRY_SCHEDULE: expected seconds separated by commas (e.g. "5,300,1800"), got "5,soon"',
    ],
    ['DATABASE_URL', 'mysql://x', 'DATABASE_URL: expected sqlite:<path> or postgres://..., got "mysql://x"'],
    ['ADMIN_TOKEN', 'short', 'ADMIN_TOKEN: must be at least 16 characters'],
    ['SEED', 'lots', 'SEED: expected one of demo, none, got "lots"'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent'],
    ['PUBLIC_BASE_URL', 'ftp://x', 'PUBLIC_BASE_URL: expected an absolute http(s) URL, got "ftp://x"'],
    ['SQLITE_CACHE_MIB', '0', 'SQLITE_CACHE_MIB: must be between 1 and 4096, got 0'],
  ])('a bad %s stops with a message naming it', (key, value, message) => {
    expect(() => loadConfig({ [key]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [key]: value })).toThrow(message);
  });

  it('CLUSTER_WORKERS=auto is one HTTP process per core', () => {
    expect(loadConfig({ CLUSTER_WORKERS: 'auto' }).clusterWorkers).toBe(availableParallelism());
    expect(() => loadConfig({ CLUSTER_WORKERS: '0' })).toThrow('CLUSTER_WORKERS: must be between 1 and 256, got 0');
    expect(() => loadConfig({ OFFERS_SYNC_INTERVAL_MS: '10' })).toThrow(
      'OFFERS_SYNC_INTERVAL_MS: must be between 50 and 60000, got 10',
    );
  });

  it('never echoes database credentials in its error', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:secret@host/db' })).toThrow('mysql://***@host/db');
  });
});
