import type { Migration } from 'kysely';
import type { Engine } from '../database.js';
import { changeLogTable } from './change-log-table.js';

/**
 * The offers change log feeds the in-process offers read model of every node (src/offers/read-model.ts).
 * Triggers write it in the same transaction as the offer change, so no write path (API, CLI import,
 * hand-written SQL) can change an offer without every node learning of it. On PostgreSQL the trigger
 * also NOTIFYs, so other nodes catch up at commit instead of at their next poll.
 */
export function offerChanges(engine: Engine): Migration {
  return changeLogTable(engine, { source: 'offers', row: 'offer', key: 'ean', notify: 'shelfmark_offers' });
}
