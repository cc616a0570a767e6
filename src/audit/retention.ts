/**
 * Pruning the audit log, called by every prune (src/retention/service.ts): the oldest records go, a
 * batch per transaction, only ever as a prefix of the chain; each batch moves the chain's anchor to
 * the hash of the last record it removed, so what remains still verifies. Then the prune itself is
 * recorded (by the system, or the operator running `npx shelfmark prune`) when it removed anything.
 */
import type { Executor } from '../db/database.js';
import { type Initiator, SYSTEM } from './initiator.js';
import { appendRecord } from './recorder.js';

export interface AuditPruneOptions {
  /** Records made before this instant may go; undefined keeps them forever. */
  cutoff: number | undefined;
  batchSize: number;
  stopped: () => boolean;
}

/** Removes old records from the start of the chain; returns how many. */
export async function pruneAuditRecords(db: Executor, options: AuditPruneOptions): Promise<number> {
  const { cutoff, batchSize } = options;
  if (cutoff === undefined) return 0;
  let removed = 0;
  for (;;) {
    const batch = await db.transaction().execute(async (trx) => {
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
      if (last === undefined) return { removed: 0, more: false };
      await trx.deleteFrom('audit_records').where('seq', '<=', last.seq).execute();
      await trx
        .updateTable('audit_chain')
        .set({ anchor_seq: last.seq, anchor_hash: last.hash })
        .where('id', '=', 1)
        .execute();
      return { removed: prefix.length, more: young < 0 && oldest.length === batchSize };
    });
    removed += batch.removed;
    if (!batch.more || options.stopped()) return removed;
  }
}

/** The record of a prune that removed rows: what it removed, per table, and the chain's anchor. */
export async function recordPrune(
  db: Executor,
  now: number,
  removed: Record<string, number>,
  by: Initiator = SYSTEM,
): Promise<void> {
  const counts = Object.fromEntries(Object.entries(removed).filter(([, rows]) => rows > 0));
  if (Object.keys(counts).length === 0) return;
  await db.transaction().execute(async (trx) => {
    const head = await trx
      .selectFrom('audit_chain')
      .select(['anchor_seq', 'anchor_hash'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    await appendRecord(trx, now, by, 'retention.pruned', 'prune', {
      removed: { before: null, after: counts },
      anchor: { before: null, after: { seq: Number(head.anchor_seq), hash: head.anchor_hash } },
    });
  });
}
