import type { Migration } from 'kysely';
import type { UntypedDb } from './untyped.js';

/**
 * Attempts made by hand ("Retry now") apart from the scheduled ones. `attempt_count` stays
 * the position on the retry schedule (the worker's next attempt waits the step after it), so a manual
 * attempt never consumes a step; `manual_attempts` counts the others, and a delivery's attempts are
 * the two together. Added with a constant default: no table rewrite on either engine.
 */
export const manualAttempts: Migration = {
  async up(db: UntypedDb) {
    await db.schema
      .alterTable('deliveries')
      .addColumn('manual_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: UntypedDb) {
    await db.schema.alterTable('deliveries').dropColumn('manual_attempts').execute();
  },
};
