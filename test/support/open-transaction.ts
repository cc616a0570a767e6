import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../src/db/schema.js';

class RolledBack extends Error {}

/**
 * Runs `work` in a transaction and keeps it open until `commit()` is called: on PostgreSQL the ids it
 * drew (sequences) are then below ids that other transactions commit meanwhile (late-commit cases).
 */
export async function openTransaction(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<unknown>,
): Promise<{ commit(): Promise<void>; rollback(): Promise<void> }> {
  let release: () => void = () => undefined;
  let rollingBack = false;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let worked: () => void = () => undefined;
  let failed: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    worked = resolve;
    failed = reject;
  });
  const done = db.transaction().execute(async (trx) => {
    await work(trx);
    worked();
    await held;
    if (rollingBack) throw new RolledBack();
  });
  done.catch(failed);
  await ready;
  return {
    async commit() {
      release();
      await done;
    },
    async rollback() {
      rollingBack = true;
      release();
      await done.catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
    },
  };
}
