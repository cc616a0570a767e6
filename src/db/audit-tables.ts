/**
 * The audit log's tables as Kysely sees them (schema.ts composes the database). Times are epoch
 * milliseconds, as everywhere in the schema; `changes` is JSON text.
 */

export interface AuditRecordsTable {
  /** Position in the chain: 1, 2, 3, … with no gap (the chain head hands it out). */
  seq: number;
  /** `aud_…`, the record's public id and the paging cursor. */
  id: string;
  at: number;
  request_id: string | null;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  role: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  target_type: string;
  target_id: string;
  /** `{ "<field>": { "before": …, "after": … } }` as JSON text. */
  changes: string;
  prev_hash: string;
  hash: string;
}

/**
 * One row (id = 1): the chain's last link, locked by every writer so the chain stays serial across
 * nodes, and the anchor left by pruning (the hash of the last record pruned, where verification starts).
 */
export interface AuditChainTable {
  id: number;
  last_seq: number;
  last_hash: string;
  anchor_seq: number;
  anchor_hash: string;
}
