/**
 * The read model holding the whole catalogue: when every EAN with published offers fits within
 * OFFERS_CACHE_EANS, the model reads them all in the background at start (and again after it had to
 * forget everything), in chunks of EANs between which requests are served. Once it holds them all, an
 * EAN it does not hold has no published offers, and is answered without a query: a restarted node is
 * warm seconds after it starts, and unknown EANs (a mistyped code, a book nobody sells) cost a map
 * look-up instead of a query (docs/performance.md#decisions).
 *
 * Changes keep it exact: an EAN changed since the reading began is `dirty`, asked of the database
 * when requested, and no chunk read before the change puts its old offers back. Too many dirty EANs,
 * an eviction or an invalidation of everything end the whole-catalogue state; the next read starts.
 */
import { type Fragment, fragmentsFromRows } from './fragment.js';
import { ownedKey } from './fragment-memory.js';
import type { OfferStore } from './store.js';

/** Offers read per chunk while loading: a chunk costs a few milliseconds, then requests go first. */
const CHUNK_ROWS = 4000;

/** After the whole-catalogue state ends, the next reading waits this long (a bulk change comes in bursts). */
const RELOAD_AFTER_MS = 1000;

/**
 * Longest a starting node reports itself warming (/readyz 503) while its first reading runs: a slow
 * database or a bound raised far beyond the default must not keep it out of rotation for good.
 */
export const WARM_UP_MAX_MS = 60_000;

export class WholeCatalogue {
  private whole = false;
  private loading: Promise<void> | undefined;
  private reload: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Bumped whenever the state ends: a load still running for an older generation stops. */
  private generation = 0;
  private readonly dirty = new Set<string>();
  /** The reading begun at start has ended, however it ended (or took longer than WARM_UP_MAX_MS). */
  private warmedUp = false;

  constructor(
    private readonly store: OfferStore,
    private readonly serviceFeeCents: number,
    /** At most this many EANs: the read model's bound. */
    private readonly bound: number,
    /** Stores a fragment read, unless the model holds that EAN already. */
    private readonly keep: (ean: string, fragment: Fragment) => void,
  ) {}

  /**
   * The first reading, begun when the node starts. Until it ends the node reports itself warming, so
   * a proxy sends its traffic elsewhere instead of to a node whose every request would be a miss.
   */
  warmUp(): void {
    const cap = setTimeout(() => {
      this.warmedUp = true;
    }, WARM_UP_MAX_MS);
    cap.unref();
    void this.load().finally(() => {
      this.warmedUp = true;
      clearTimeout(cap);
    });
  }

  /** Whether the first reading has ended (see warmUp()). */
  get warm(): boolean {
    return this.warmedUp;
  }

  /** True when this EAN, not held by the model, is known to have no published offers. */
  knownEmpty(ean: string): boolean {
    return this.whole && !this.dirty.has(ean);
  }

  /** An EAN changed: from now on it is asked of the database until a fill stores it again. */
  changed(ean: string): void {
    if (!this.whole && this.loading === undefined) return;
    this.dirty.add(ownedKey(ean));
    if (this.dirty.size > this.bound / 10) this.end();
  }

  /** A fill stored this EAN's fragment (read after every change the model knows of). */
  filled(ean: string): void {
    this.dirty.delete(ean);
  }

  /** The model forgot everything or evicted a fragment: it no longer holds the whole catalogue. */
  end(): void {
    this.generation++;
    this.whole = false;
    this.loading = undefined;
    this.dirty.clear();
    if (this.reload !== undefined || this.stopped || this.bound === 0) return;
    this.reload = setTimeout(() => {
      this.reload = undefined;
      void this.load();
    }, RELOAD_AFTER_MS);
    this.reload.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reload !== undefined) clearTimeout(this.reload);
    await this.loading;
  }

  /**
   * Reads every EAN with published offers, chunk by chunk, unless there are more than the bound.
   * Errors end the reading: the model then fills on demand, as it always can.
   */
  load(): Promise<void> {
    if (this.whole || this.stopped || this.bound === 0) return Promise.resolve();
    if (this.loading !== undefined) return this.loading;
    const generation = this.generation;
    const current = (): boolean => generation === this.generation && !this.stopped;
    const loading = (async () => {
      if ((await this.store.countPublishedEans()) > this.bound) return;
      let after = '';
      while (current()) {
        const rows = await this.store.publishedAfter(after, CHUNK_ROWS);
        if (!current()) return;
        if (rows.length === 0) {
          this.whole = true;
          return;
        }
        const eans = [...new Set(rows.map((row) => row.ean))];
        for (const [ean, fragment] of fragmentsFromRows(eans, rows, this.serviceFeeCents))
          if (!this.dirty.has(ean)) this.keep(ean, fragment);
        after = eans[eans.length - 1] ?? after;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    this.loading = loading;
    return loading;
  }
}
