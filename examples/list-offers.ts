/**
 * Prints every offer for the books of one learning-material list.
 *
 *   npx tsx examples/list-offers.ts [list identifier or slug]
 *
 * Without an argument it takes the first published list. See env.ts for the addresses and credentials.
 */
import type { ShelfmarkClient } from '@shelfmark/client';
import { clientFromEnv, isMain } from './env.js';

const euro = (amount: number): string => `€ ${amount.toFixed(2)}`;

/** The report as lines: the list, then each book with its offers (cheapest first). */
export async function listOffers(client: ShelfmarkClient, listRef?: string): Promise<string[]> {
  let list = listRef === undefined ? undefined : await client.lml.lists.get(listRef);
  if (list === undefined) {
    for await (const candidate of client.lml.lists.all({ status: 'published' })) {
      list = candidate;
      break;
    }
  }
  if (list === undefined) return ['no published list found'];
  const offers = await client.offers.byEans(list.items.map((item) => item.ean));
  const lines = [
    `${list.name} (${list.breadcrumb.join(' › ')}; ${list.status}, ${list.items.length} books, list ${list.identifier})`,
  ];
  for (const item of list.items) {
    const forItem = offers.filter((offer) => offer.ean === item.ean).sort((a, b) => a.price - b.price);
    lines.push(`  ${item.ean}  ${item.title}${item.mandatory ? '' : ' (optional)'}`);
    if (forItem.length === 0) lines.push('      no offers');
    for (const offer of forItem)
      lines.push(
        `      #${offer.id}  ${euro(offer.price)}  ${offer.condition}${offer.remarks === null ? '' : `  ${offer.remarks}`}`,
      );
  }
  return lines;
}

if (isMain(import.meta.url)) {
  const lines = await listOffers(clientFromEnv(), process.argv[2]);
  console.log(lines.join('\n'));
}
