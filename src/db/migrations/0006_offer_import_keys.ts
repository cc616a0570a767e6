import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * `offers import` finds the offers of an earlier run of the same file by each row's stable key
 * (see README: CLI). A table of its own, so the offers table keeps its shape.
 */
export const offerImportKeys: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .createTable('offer_import_keys')
      .addColumn('import_key', 'text', (c) => c.primaryKey())
      .addColumn('offer_id', 'integer', (c) => c.notNull().references('offers.id').onDelete('cascade'))
      .execute();
  },
  async down(db: UntypedDb) {
    await db.schema.dropTable('offer_import_keys').ifExists().execute();
  },
};
