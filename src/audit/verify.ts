/**
 * `npx shelfmark audit verify`: walks the chain from its anchor (the genesis, or the last record a
 * prune removed) and recomputes every link. A record edited, inserted, removed or reordered breaks
 * the first link after it; a record removed from the end no longer matches the chain's head.
 */
import type { Executor } from '../db/database.js';
import { chainHash, contentOf } from './canonical.js';
import { AuditStore } from './store.js';

export type Verdict =
  | { intact: true; records: number; anchor: { seq: number; hash: string } }
  | { intact: false; records: number; brokenAt: { seq: number; id: string | null }; reason: string };

export async function verifyChain(db: Executor): Promise<Verdict> {
  const head = await db.selectFrom('audit_chain').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  let expectedSeq = Number(head.anchor_seq) + 1;
  let prevHash = head.anchor_hash;
  let records = 0;
  const broken = (seq: number, id: string | null, reason: string): Verdict => ({
    intact: false,
    records,
    brokenAt: { seq, id },
    reason,
  });
  for await (const record of new AuditStore(db).all()) {
    if (record.seq !== expectedSeq)
      return broken(expectedSeq, record.id, `record ${expectedSeq} is missing (the next one is ${record.seq})`);
    if (record.prevHash !== prevHash)
      return broken(record.seq, record.id, 'prevHash is not the hash of the record before it');
    const { seq: _seq, ...wire } = record;
    if (chainHash(record.prevHash, contentOf(wire)) !== record.hash)
      return broken(record.seq, record.id, 'the content does not match its hash (the record was changed)');
    prevHash = record.hash;
    expectedSeq += 1;
    records += 1;
  }
  if (Number(head.last_seq) !== expectedSeq - 1 || head.last_hash !== prevHash)
    return broken(
      expectedSeq,
      null,
      `the chain's head names record ${head.last_seq}, but the records end at ${expectedSeq - 1}`,
    );
  return { intact: true, records, anchor: { seq: Number(head.anchor_seq), hash: head.anchor_hash } };
}
