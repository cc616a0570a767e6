import type { Migration } from 'kysely';
import type { Engine } from '../database.js';
import { changeLogTable } from './change-log-table.js';

/**
 * The schools change log feeds the in-process school directory of every node (src/lml/school-directory.ts),
 * which answers the first level of the structure tree. Triggers write it in the same transaction as the
 * change, as the offers change log does (0003), so no write path can change a school unseen.
 */
export function schoolChanges(engine: Engine): Migration {
  return changeLogTable(engine, { source: 'schools', row: 'school', key: 'identifier' });
}
