/**
 * A whole book list priced in one call: the list's items in its order, each with its cheapest
 * published offers, and the totals a student would pay. One list read plus the offers read model:
 * each item's offers are slices of its EAN's ready JSON fragment, so no item costs a query and no
 * offer is serialised again. Totals are sums of integer cents, exact.
 */
import type { ListRow } from '../db/schema.js';
import { isResourceIdentifier } from '../ids.js';
import { parseItems } from '../lml/views.js';
import { notFound } from '../problems/catalogue.js';
import { conditionQuality, euros, type OfferCondition } from './model.js';
import type { OfferReadModel } from './read-model.js';

/** Lists that the LML API hides from its collection (archived ones) are not priced either. */
const HIDDEN_STATUSES: readonly string[] = ['archived'];

export const DEFAULT_OFFERS_PER_ITEM = 3;
export const MAX_OFFERS_PER_ITEM = 20;

/** What pricing needs of a list; ListStore (src/lml/list-store.ts) provides it. */
export interface ListReader {
  find(identifier: string): Promise<Pick<ListRow, 'identifier' | 'name' | 'status' | 'items'> | undefined>;
}

export interface PricedListQuery {
  /** The worst condition accepted (acceptable < good < excellent); every condition when absent. */
  condition?: OfferCondition | undefined;
  /** Offers per item. */
  limit?: number | undefined;
}

/** Euros from cents as JSON text: an integer divided by 100 prints as its 2-decimal amount. */
const amount = (cents: number): string => JSON.stringify(euros(cents));

export class PricedListService {
  constructor(
    private readonly lists: ListReader,
    private readonly offers: Pick<OfferReadModel, 'fragmentsFor'>,
  ) {}

  /** The priced list as JSON text (the route sends it as is; the ETag hook hashes it). */
  async price(identifier: string, query: PricedListQuery = {}): Promise<string> {
    const list = isResourceIdentifier(identifier) ? await this.lists.find(identifier) : undefined;
    if (list === undefined || HIDDEN_STATUSES.includes(list.status)) throw notFound(`list ${identifier}`);
    const items = parseItems(list.items);
    const fragments = await this.offers.fragmentsFor(items.map((item) => item.ean));
    const minimum = query.condition === undefined ? 0 : conditionQuality(query.condition);
    const limit = query.limit ?? DEFAULT_OFFERS_PER_ITEM;
    const counts = { items: items.length, withOffers: 0, mandatory: 0, mandatoryWithOffers: 0 };
    let cheapestTotal = 0;
    let cheapestMandatoryTotal = 0;
    const itemsJson = items.map((item, index) => {
      const fragment = fragments[index];
      const offers: string[] = [];
      let cheapest: number | undefined;
      for (const span of fragment?.spans ?? []) {
        if (span.quality < minimum) continue;
        cheapest ??= span.cents;
        offers.push((fragment?.json ?? '').slice(span.start, span.end));
        if (offers.length === limit) break;
      }
      if (item.mandatory) counts.mandatory++;
      if (cheapest !== undefined) {
        counts.withOffers++;
        cheapestTotal += cheapest;
        if (item.mandatory) {
          counts.mandatoryWithOffers++;
          cheapestMandatoryTotal += cheapest;
        }
      }
      return `{"ean":${JSON.stringify(item.ean)},"title":${JSON.stringify(item.title)},"mandatory":${item.mandatory},"offers":[${offers.join(',')}]}`;
    });
    const head = JSON.stringify({ identifier: list.identifier, name: list.name, status: list.status });
    const summary =
      `{"items":${counts.items},"itemsWithOffers":${counts.withOffers},"mandatoryItems":${counts.mandatory},` +
      `"mandatoryItemsWithOffers":${counts.mandatoryWithOffers},"cheapestTotal":${amount(cheapestTotal)},` +
      `"cheapestMandatoryTotal":${amount(cheapestMandatoryTotal)},"currency":"EUR"}`;
    return `{"list":${head},"items":[${itemsJson.join(',')}],"summary":${summary}}`;
  }
}
