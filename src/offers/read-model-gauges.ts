/**
 * The offers read model on /metrics, read from the model at scrape time (nothing on the request
 * path): the EANs it holds, which is what OFFERS_CACHE_EANS bounds and what its memory follows, and
 * how many offers calls it answered from memory or had to ask the database for.
 */
import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../observability/metrics.js';
import type { ReadModelStats } from './read-model.js';

export function installReadModelGauges(metrics: Metrics, model: { stats(): ReadModelStats }): void {
  new Gauge({
    name: 'shelfmark_offers_read_model_eans',
    help: 'EANs whose published offers this node holds in memory (bounded by OFFERS_CACHE_EANS)',
    registers: [metrics.registry],
    collect() {
      this.set(model.stats().eans);
    },
  });
  new Counter({
    name: 'shelfmark_offers_read_model_lookups_total',
    help: 'Offers look-ups of this node by result: hit (answered from memory) or miss (the database was asked)',
    labelNames: ['result'] as const,
    registers: [metrics.registry],
    collect() {
      const { hits, misses } = model.stats();
      this.reset();
      this.inc({ result: 'hit' }, hits);
      this.inc({ result: 'miss' }, misses);
    },
  });
}
