/**
 * Pruning the audit log, a step of every prune (src/retention/run.ts, paced like its other batches): the
 * oldest records go, a batch per transaction, only ever as a prefix of the chain; each batch moves the
 * chain's anchor to the hash of the last record it removed, so what remains still verifies. Then the
 * prune itself is recorded (by the system, or the operator running `npx shelfmark prune`) when it
 * removed anything.
 */
import type { Executor } from '../db/database.js';
import type { Changes } from './canonical.js';

/**
 * Removes up to `batchSize` records made before `cutoff` from the start of the chain, inside the
 * caller's transaction; returns how many (fewer than `batchSize`: nothing older is left).
 */
export async function pruneAuditBatch(trx: Executor, cutoff: number, batchSize: number): Promise<number> {
  // Taken like a record takes it, so no record is appended while the anchor moves.
  const head = await trx
    .updateTable('audit_chain')
    .set((eb) => ({ anchor_seq: eb.ref('anchor_seq') }))
    .where('id', '=', 1)
    .returning(['anchor_seq'])
    .executeTakeFirstOrThrow();
  const oldest = await trx
    .selectFrom('audit_records')
    .select(['seq', 'at', 'hash'])
    .where('seq', '>', head.anchor_seq)
    .orderBy('seq')
    .limit(batchSize)
    .execute();
  const young = oldest.findIndex((row) => Number(row.at) >= cutoff);
  const prefix = young < 0 ? oldest : oldest.slice(0, young);
  const last = prefix.at(-1);
  if (last === undefined) return 0;
  await trx.deleteFrom('audit_records').where('seq', '<=', last.seq).execute();
  await trx
    .updateTable('audit_chain')
    .set({ anchor_seq: last.seq, anchor_hash: last.hash })
    .where('id', '=', 1)
    .execute();
  // A young record inside the batch ends the prefix, and makes the batch short.
  return prefix.length;
}

/**
 * What pruneAuditBatch would remove now (the dry run): the records before the first one made at or
 * after `cutoff`. Found by walking the chain from its start, so the read is as long as the prefix.
 */
export async function countPrunableAuditRecords(db: Executor, cutoff: number): Promise<number> {
  const firstKept = await db
    .selectFrom('audit_records')
    .select('seq')
    .where('at', '>=', cutoff)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  let query = db.selectFrom('audit_records').select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (firstKept !== undefined) query = query.where('seq', '<', firstKept.seq);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The record of a prune that removed rows (`retention.pruned`): what it removed, per table, and the
 * chain's anchor, read in the change's transaction; undefined when it removed nothing.
 */
export async function pruneRecord(trx: Executor, removed: Record<string, number>): Promise<Changes | undefined> {
  const counts = Object.fromEntries(Object.entries(removed).filter(([, rows]) => rows > 0));
  if (Object.keys(counts).length === 0) return undefined;
  const head = await trx
    .selectFrom('audit_chain')
    .select(['anchor_seq', 'anchor_hash'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return {
    removed: { before: null, after: counts },
    anchor: { before: null, after: { seq: Number(head.anchor_seq), hash: head.anchor_hash } },
  };
}
