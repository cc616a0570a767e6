/**
 * The hash chain's rules, in one place so the recorder, `audit verify` and anyone checking an ndjson
 * export compute the same hash:
 *
 * - canonical JSON: JSON.stringify's encoding of every value, object keys sorted by UTF-16 code
 *   units at every depth, no whitespace; `undefined` members are left out;
 * - a record's content is its wire shape without `prevHash` and `hash`;
 * - hash = lower-case hex SHA-256 of (prevHash + canonical JSON of the content), prevHash of the
 *   first record being GENESIS_HASH (64 zeros).
 */
import { createHash } from 'node:crypto';
import type { ActorType, Role } from '../vocabulary/actor.js';

export const GENESIS_HASH = '0'.repeat(64);

/** A JSON value as changes carry it. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What changed, field by field. */
export type Changes = Readonly<Record<string, { readonly before: JsonValue; readonly after: JsonValue }>>;

/** The wire shape of one record (GET /api/admin/v1/audit, the ndjson export). */
export interface AuditRecord {
  id: string;
  /** ISO 8601, milliseconds, UTC. */
  at: string;
  requestId: string | null;
  actor: { type: ActorType; id: string | null; name: string | null };
  role: Role | null;
  ip: string | null;
  userAgent: string | null;
  action: string;
  target: { type: string; id: string };
  changes: Changes;
  prevHash: string;
  hash: string;
}

export type AuditContent = Omit<AuditRecord, 'prevHash' | 'hash'>;

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
}

export function chainHash(prevHash: string, content: AuditContent): string {
  return createHash('sha256')
    .update(prevHash + canonicalJson(content))
    .digest('hex');
}

/** The hashed part of a wire record. */
export function contentOf(record: AuditRecord): AuditContent {
  const { prevHash: _prevHash, hash: _hash, ...content } = record;
  return content;
}
