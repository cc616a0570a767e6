/**
 * The public offers, served from memory: per EAN, the published offers as a ready JSON fragment, so
 * the hottest call of the API costs map look-ups and one string join instead of a query and a
 * serialisation.
 *
 * Freshness, by construction rather than by expiry:
 * - every write path changes `offers`, and triggers record the EAN in `offer_changes` in the same
 *   transaction (0003; the offers import on PostgreSQL writes its own, 0021): no write escapes the log;
 * - the node that writes through OfferService drops the EAN at once, before answering the write, so
 *   it never serves an offer that a committed write withdrew;
 * - every node reads the log every `offersSyncIntervalMs` (and on PostgreSQL at once, woken by the
 *   trigger's NOTIFY), so another node is stale for at most that interval;
 * - a fill that raced with an invalidation is answered but not kept (the epoch check), so a slow
 *   query can never put back what a change just removed.
 */
import type { Config } from '../config.js';
import {
  type ChangeLogStore,
  EVERY_KEY,
  fellBehind,
  type LogPosition,
  OFFER_CHANGES_CHANNEL,
} from '../db/change-log.js';
import type { Dialect } from '../db/database.js';
import { parseEanList } from '../vocabulary/ean.js';
import { AnswerMemo } from './answer-memo.js';
import { type Fragment, fragmentsFromRows, joined, NO_OFFERS, type PublishedOffers } from './fragment.js';
import { ownedKey } from './fragment-memory.js';
import type { OfferStore } from './store.js';
import { WholeCatalogue } from './whole-catalogue.js';

export type ReadModelStats = { eans: number; hits: number; misses: number };

export class OfferReadModel {
  /** EAN → its published offers as JSON (joined by commas, '' when none) and a tag of that text. Insertion order = age. */
  private readonly fragments = new Map<string, Fragment>();
  /** Bumped by every invalidation; a fill keeps its result only if no invalidation happened meanwhile. */
  private epoch = 0;
  /** Where this node stands in offer_changes; undefined until started. */
  private position: LogPosition | undefined;
  private starting: Promise<void> | undefined;
  private syncing: Promise<void> | undefined;
  private syncAgain = false;
  private lastRead = 0;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private hits = 0;
  private misses = 0;
  /** Answers by the query as sent, forgotten with any fragment (answer-memo.ts). */
  private readonly answers = new AnswerMemo();
  /** Whether the model holds every EAN with published offers (whole-catalogue.ts). */
  private readonly catalogue: WholeCatalogue;

  constructor(
    private readonly store: OfferStore,
    private readonly log: ChangeLogStore,
    private readonly config: Pick<Config, 'serviceFeeCents' | 'offersCacheEans' | 'offersSyncIntervalMs'>,
    private readonly dialect: Dialect,
    private readonly now: () => number = Date.now,
  ) {
    this.catalogue = new WholeCatalogue(store, config.serviceFeeCents, config.offersCacheEans, (ean, fragment) => {
      if (!this.fragments.has(ean) && this.fragments.size < config.offersCacheEans)
        this.fragments.set(ownedKey(ean), fragment);
    });
  }

  /**
   * The JSON array of published offers for these (valid, distinct) EANs, by EAN, price, id, with a
   * strong entity tag made from the fragments' own tags (docs/decisions/0001-offers-read-model.md).
   */
  async published(eans: readonly string[]): Promise<PublishedOffers> {
    return this.assemble(eans);
  }

  /**
   * The answer to the `eans` query value as sent (parseEanList throws its problems); synchronous when
   * the answer or every EAN is remembered, so the hot path awaits nothing.
   */
  answer(query: string | undefined): PublishedOffers | Promise<PublishedOffers> {
    const remembered = query === undefined ? undefined : this.answers.get(query);
    if (remembered !== undefined) {
      this.hits++;
      return remembered;
    }
    const answer = this.assemble(parseEanList(query));
    // Only an answer made at once from remembered fragments: a fill may race with a change (see fill()).
    if (query !== undefined && !(answer instanceof Promise)) this.answers.remember(query, answer);
    return answer;
  }

  private assemble(eans: readonly string[]): PublishedOffers | Promise<PublishedOffers> {
    if (this.position === undefined) return this.start().then(() => this.assemble(eans));
    const sorted = eans.length === 1 ? eans : [...eans].sort();
    const fragments = this.fragmentsOf(sorted);
    return Array.isArray(fragments) ? joined(fragments) : fragments.then(joined);
  }

  /** Each EAN's fragment, in the order given (the priced list slices offers out of them). */
  async fragmentsFor(eans: readonly string[]): Promise<(Fragment | undefined)[]> {
    if (this.position === undefined) await this.start();
    return this.fragmentsOf(eans);
  }

  /** Synchronous when every EAN is cached, so the hot path of published() awaits nothing. */
  private fragmentsOf(eans: readonly string[]): (Fragment | undefined)[] | Promise<(Fragment | undefined)[]> {
    // Fragments are read before any await: an invalidation during the fill below must not make a
    // fragment this request already counted on disappear from its answer.
    const found: (Fragment | undefined)[] = eans.map(
      (ean) => this.fragments.get(ean) ?? (this.catalogue.knownEmpty(ean) ? NO_OFFERS : undefined),
    );
    const missing = eans.filter((_ean, index) => found[index] === undefined);
    if (missing.length === 0) {
      this.hits++;
      return found;
    }
    this.misses++;
    return this.fill(missing).then((filled) => {
      eans.forEach((ean, index) => {
        found[index] ??= filled.get(ean);
      });
      return found;
    });
  }

  /** Forget these EANs now (the writing node, right after its commit). */
  invalidate(eans: Iterable<string>): void {
    this.epoch++;
    this.answers.clear();
    for (const ean of eans) {
      this.fragments.delete(ean);
      this.catalogue.changed(ean);
    }
  }

  /** Reads the change log and forgets every EAN another writer changed. Calls never overlap. */
  sync(): Promise<void> {
    if (this.syncing !== undefined) {
      // A change may have committed after the running read began: read once more when it ends.
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      try {
        do {
          this.syncAgain = false;
          await this.readChanges();
        } while (this.syncAgain);
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  /**
   * Starts following the change log: reads where it ends, then polls, and on PostgreSQL listens for
   * the trigger's NOTIFY. Idempotent; the first read calls it when nobody did.
   */
  start(listen?: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>): Promise<void> {
    this.starting ??= (async () => {
      this.lastRead = this.now();
      this.position = await this.log.start(this.dialect, this.lastRead);
      this.timer = setInterval(() => void this.sync().catch(() => this.clear()), this.config.offersSyncIntervalMs);
      this.timer.unref();
      if (listen !== undefined) {
        // Without the listener the poll still bounds staleness; it only costs promptness.
        this.unlisten = await listen(OFFER_CHANGES_CHANNEL, () => void this.sync().catch(() => this.clear())).catch(
          () => undefined,
        );
      }
      this.catalogue.warmUp(); // in the background: requests are served (filling on demand) meanwhile
    })();
    return this.starting;
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.starting?.catch(() => undefined);
    await this.catalogue.stop();
    await this.unlisten?.();
    this.unlisten = undefined;
  }

  /** Whether the first reading of the catalogue has ended: readiness waits for it (whole-catalogue.ts). */
  get warm(): boolean {
    return this.catalogue.warm;
  }

  /** How many answers are remembered (answer-memo.ts); tests check its bound. */
  rememberedAnswers(): number {
    return this.answers.size;
  }

  stats(): ReadModelStats {
    return { eans: this.fragments.size, hits: this.hits, misses: this.misses };
  }

  private clear(): void {
    this.epoch++;
    this.answers.clear();
    this.fragments.clear();
    this.catalogue.end();
  }

  private async fill(missing: string[]): Promise<Map<string, Fragment>> {
    const epoch = this.epoch;
    const rows = await this.store.findPublishedByEans(missing);
    const byEan = fragmentsFromRows(missing, rows, this.config.serviceFeeCents);
    if (epoch === this.epoch && this.config.offersCacheEans > 0) {
      for (const [ean, fragment] of byEan) {
        if (this.fragments.size >= this.config.offersCacheEans) {
          // Oldest fill first: a Map iterates in insertion order.
          const oldest = this.fragments.keys().next();
          if (oldest.done !== true) this.fragments.delete(oldest.value);
          this.catalogue.end();
        }
        this.fragments.set(ownedKey(ean), fragment);
        this.catalogue.filled(ean);
      }
    }
    return byEan;
  }

  private async readChanges(): Promise<void> {
    const position = this.position;
    if (position === undefined) return;
    const now = this.now();
    const changes = await this.log.read(position);
    if (fellBehind(this.lastRead, now)) {
      // The log may have been pruned past this node's position while it could not read: start afresh.
      this.clear();
    } else if (changes.some((change) => change.key === EVERY_KEY)) {
      this.clear();
    } else if (changes.length > 0) {
      this.invalidate(changes.map((change) => change.key));
    }
    this.lastRead = now;
    if (
      !position.advance(
        changes.map((change) => change.id),
        now,
      )
    ) {
      // More ids missing than are followed: forget everything and follow the log from its end.
      this.clear();
      this.position = await this.log.start(this.dialect, now);
    }
    await this.log.pruneIfDue(now);
  }
}
