/** A record between its wire shape and its row. */
import { isoTime } from '../clock.js';
import type { AuditRecordsTable } from '../db/audit-tables.js';
import type { ActorType, Role } from '../vocabulary/actor.js';
import type { AuditRecord, Changes } from './canonical.js';

export function toRow(seq: number, at: number, record: AuditRecord): AuditRecordsTable {
  return {
    seq,
    id: record.id,
    at,
    request_id: record.requestId,
    actor_type: record.actor.type,
    actor_id: record.actor.id,
    actor_name: record.actor.name,
    role: record.role,
    ip: record.ip,
    user_agent: record.userAgent,
    action: record.action,
    target_type: record.target.type,
    target_id: record.target.id,
    changes: JSON.stringify(record.changes),
    prev_hash: record.prevHash,
    hash: record.hash,
  };
}

export function fromRow(row: AuditRecordsTable): AuditRecord {
  return {
    id: row.id,
    at: isoTime(Number(row.at)),
    requestId: row.request_id,
    actor: { type: row.actor_type as ActorType, id: row.actor_id, name: row.actor_name },
    role: row.role as Role | null,
    ip: row.ip,
    userAgent: row.user_agent,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    changes: JSON.parse(row.changes) as Changes,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}
