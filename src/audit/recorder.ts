/**
 * Writing the audit log: `record` appends one record to the hash chain inside the caller's
 * transaction, so the change and its record commit together or not at all. It takes the chain's head
 * row for the rest of the transaction (appendRecord), so records from any number of nodes form one
 * serial chain. Call it after the change's own writes: the
 * head lock is then held only until the commit, and a transaction that holds it waits for nothing else.
 */

import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import type { Db, Executor } from '../db/database.js';
import { ids } from '../ids.js';
import { type AuditContent, type AuditRecord, type Changes, chainHash, type JsonValue } from './canonical.js';
import { type AuditAction, targetTypeOf } from './catalogue.js';
import type { Initiator } from './initiator.js';
import { toRow } from './rows.js';
import { AuditStore } from './store.js';

/**
 * A store that owns its transaction takes the audit record as this callback, called inside that
 * transaction after the change with what the change found out (the status before, a count, an id).
 */
export type InTransaction<Found = string> = (trx: Executor, found: Found) => Promise<unknown>;

/** The one value a secret's field may carry. */
export const ROTATED = 'rotated';

/** A field for a value that was set or removed: `{ [field]: { before, after } }` over several fields. */
export function changesBetween(
  before: Record<string, JsonValue> | null,
  after: Record<string, JsonValue> | null,
): Changes {
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: Record<string, { before: JsonValue; after: JsonValue }> = {};
  for (const field of fields) {
    const was = before?.[field] ?? null;
    const is = after?.[field] ?? null;
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = { before: was, after: is };
  }
  return changes;
}

/** Fields named after a secret (clientSecret, webhookSecret, token) may only say that it rotated. */
const SECRET_FIELD = /(secret|hash|password|token)$/i;
/** Secrets as ids.ts mints them: a client secret, the admin token, a webhook secret. */
const SECRET_VALUE = /"(sms_|sma_|whsec_)/;

/** Refuses a record that would carry a secret: a programming error, failing the change with it. */
function assertNoSecrets(changes: Changes): void {
  for (const [field, { before, after }] of Object.entries(changes))
    for (const value of [before, after])
      if (SECRET_FIELD.test(field) && value !== null && value !== ROTATED)
        throw new Error(`audit: field ${field} may only record "${ROTATED}"`);
  if (SECRET_VALUE.test(JSON.stringify(changes))) throw new Error('audit: a change carries a secret');
}

/** Transactions that append their records at their end (`deferRecords`), and the records waiting. */
const deferred = new WeakMap<Executor, (() => Promise<AuditRecord>)[]>();

/**
 * Records appended in `trx` from now on wait until the function returned is called, then go in the
 * order they were made. The outbox calls it last, after its fan-out: a record takes the chain's head
 * row until the commit, and every audited write of every node waits for that row, so the less the
 * transaction does after taking it the less the others wait (docs/decisions/0005-audit-chain.md). A
 * transaction that fails before never appends them.
 */
export function deferRecords(trx: Executor): () => Promise<void> {
  const waiting: (() => Promise<AuditRecord>)[] = [];
  deferred.set(trx, waiting);
  return async () => {
    deferred.delete(trx);
    for (const append of waiting) await append();
  };
}

/**
 * Appends one record in `trx` (at the end of the transaction when it defers its records). Taking the
 * next link is one UPDATE of the head row: on PostgreSQL it locks that row until the commit (a
 * concurrent writer's UPDATE waits, then sees the committed head), on SQLite the write transaction
 * already excludes every other writer; the same SQL serves both.
 */
export async function appendRecord(
  trx: Executor,
  at: number,
  by: Initiator,
  action: AuditAction,
  targetId: string,
  changes: Changes = {},
): Promise<void> {
  // Checked now, where the change is made: a record that would carry a secret fails its change.
  assertNoSecrets(changes);
  const append = (): Promise<AuditRecord> => link(trx, at, by, action, targetId, changes);
  const waiting = deferred.get(trx);
  if (waiting === undefined) await append();
  else waiting.push(append);
}

async function link(
  trx: Executor,
  at: number,
  by: Initiator,
  action: AuditAction,
  targetId: string,
  changes: Changes,
): Promise<AuditRecord> {
  const head = await trx
    .updateTable('audit_chain')
    .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
    .where('id', '=', 1)
    .returning(['last_seq', 'last_hash'])
    .executeTakeFirstOrThrow();
  const prevHash = head.last_hash;
  const content: AuditContent = {
    id: ids.audit(),
    at: isoTime(at),
    requestId: by.origin.requestId,
    actor: { type: by.actor.type, id: by.actor.id, name: by.actor.name },
    role: by.actor.role,
    ip: by.origin.ip,
    userAgent: by.origin.userAgent,
    action,
    target: { type: targetTypeOf(action), id: targetId },
    changes,
  };
  const record: AuditRecord = { ...content, prevHash, hash: chainHash(prevHash, content) };
  await trx
    .insertInto('audit_records')
    .values(toRow(Number(head.last_seq), at, record))
    .execute();
  await trx.updateTable('audit_chain').set({ last_hash: record.hash }).where('id', '=', 1).execute();
  return record;
}

/** The audit log as services use it: their transactions, and a record in each. */
export class AuditLog {
  /** Reading it: pages, the export, verification. */
  readonly store: AuditStore;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.store = new AuditStore(db.kysely);
  }

  /** A transaction for a change and its record (services without one of their own). */
  transaction<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    return this.db.kysely.transaction().execute(work);
  }

  /** Appends the record of a change made in `trx` (see the file's comment: after the change's writes). */
  record(trx: Executor, by: Initiator, action: AuditAction, targetId: string, changes: Changes = {}): Promise<void> {
    return appendRecord(trx, this.clock.now(), by, action, targetId, changes);
  }
}
