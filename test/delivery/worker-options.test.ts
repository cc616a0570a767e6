/** The worker's defaults follow WEBHOOK_CONCURRENCY; explicit options win. */
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { workerSettings } from '../../src/delivery/worker-options.js';

const quiet = { error: () => undefined, warn: () => undefined };

describe('workerSettings', () => {
  it('claims twice the concurrency ahead, refills at half, and caps a subscription at half the slots', () => {
    const settings = workerSettings(testConfig({ webhookConcurrency: 32 }), { logger: quiet });
    expect({
      concurrency: settings.concurrency,
      perSubscription: settings.perSubscription,
      prefetch: settings.prefetch,
      refill: settings.refill,
      completionBacklog: settings.completionBacklog,
    }).toEqual({ concurrency: 32, perSubscription: 16, prefetch: 64, refill: 16, completionBacklog: 32 });
  });

  it('keeps a cap of at least 4 leases per subscription at small concurrency', () => {
    const settings = workerSettings(testConfig({ webhookConcurrency: 2 }), { logger: quiet });
    expect([settings.perSubscription, settings.prefetch, settings.refill]).toEqual([4, 4, 1]);
  });

  it('takes explicit options over the defaults', () => {
    const settings = workerSettings(testConfig({ webhookConcurrency: 32 }), {
      logger: quiet,
      perSubscription: 5,
      prefetch: 7,
      completionBacklog: 3,
    });
    expect([settings.perSubscription, settings.prefetch, settings.completionBacklog]).toEqual([5, 7, 3]);
  });
});
