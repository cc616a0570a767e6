/** Small installation-wide values (hash pepper, generated admin token hash) kept in the database. */
import type { Executor } from './database.js';

export async function getSetting(db: Executor, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

export async function putSetting(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** Inserts the value unless the key exists, then returns whichever value won (safe across nodes). */
export async function getOrCreateSetting(db: Executor, key: string, create: () => string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value: create() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const value = await getSetting(db, key);
  if (value === undefined) throw new Error(`setting ${key} vanished`);
  return value;
}
