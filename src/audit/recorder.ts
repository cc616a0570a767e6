/**
 * Writing the audit log: a record is appended to the hash chain inside its change's transaction
 * (src/changes/unit-of-work.ts), so the change and its record commit together or not at all. Taking
 * the chain's head row for the rest of the transaction makes the records of any number of nodes one
 * serial chain.
 */

import { isoTime } from '../clock.js';
import type { Executor } from '../db/database.js';
import { ids } from '../ids.js';
import { type AuditContent, type AuditRecord, type Changes, chainHash, type JsonValue } from './canonical.js';
import { type AuditAction, targetTypeOf } from './catalogue.js';
import type { Initiator } from './initiator.js';
import { toRow } from './rows.js';

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

/**
 * Checks a record where its change is made, failing the change with it (a programming error): a
 * record may carry no secret, and a change made for a route records only what that route declares.
 */
export function checkRecord(by: Initiator, action: AuditAction, changes: Changes): void {
  if (by.declared !== undefined && !by.declared.includes(action))
    throw new Error(`audit: ${action} is recorded, but the route declares ${JSON.stringify(by.declared)}`);
  for (const [field, { before, after }] of Object.entries(changes))
    for (const value of [before, after])
      if (SECRET_FIELD.test(field) && value !== null && value !== ROTATED)
        throw new Error(`audit: field ${field} may only record "${ROTATED}"`);
  if (SECRET_VALUE.test(JSON.stringify(changes))) throw new Error('audit: a change carries a secret');
}

/**
 * Appends one checked record in `trx` (src/changes/unit-of-work.ts is the one caller that records a
 * change). Taking the next link is one UPDATE of the head row: on PostgreSQL it locks that row until
 * the commit (a concurrent writer's UPDATE waits, then sees the committed head), on SQLite the write
 * transaction already excludes every other writer; the same SQL serves both.
 */
export async function appendRecord(
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
