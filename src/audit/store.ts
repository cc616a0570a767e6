/**
 * Reading the audit log: filtered pages newest first (keyset on the chain position), and every
 * matching record oldest first, in batches, for the ndjson export and for verification.
 */
import type { SelectQueryBuilder } from 'kysely';
import type { AuditRecordsTable } from '../db/audit-tables.js';
import type { Executor } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { Problem } from '../problems/catalogue.js';
import type { AuditRecord } from './canonical.js';
import { fromRow } from './rows.js';
import type { AuditSubject } from './schemas.js';
import { subjectsOf } from './subjects.js';

export interface AuditFilter {
  /** An actor's id (operator sub, partner client id), name (e-mail, "cli (…)") or type (`system`). */
  actor?: string | undefined;
  /** One action, or every action under a prefix: `client.*`. */
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  /** Epoch ms, inclusive. */
  since?: number | undefined;
  /** Epoch ms, exclusive. */
  until?: number | undefined;
}

const EXPORT_BATCH = 500;

const invalid = (path: string, detail: string): Problem =>
  new Problem('validation-failed', detail, { errors: [{ location: 'querystring', path, message: detail }] });

type Query = SelectQueryBuilder<Database, 'audit_records', AuditRecordsTable>;

function filtered(db: Executor, filter: AuditFilter): Query {
  let query = db.selectFrom('audit_records').selectAll();
  const { actor, action, targetType, targetId, since, until } = filter;
  if (actor !== undefined)
    query = query.where((eb) =>
      eb.or([eb('actor_id', '=', actor), eb('actor_name', '=', actor), eb('actor_type', '=', actor)]),
    );
  if (action !== undefined)
    query = action.endsWith('.*')
      ? query.where('action', 'like', `${action.slice(0, -1).replace(/[%_\\]/g, '')}%`)
      : query.where('action', '=', action);
  if (targetType !== undefined) query = query.where('target_type', '=', targetType);
  if (targetId !== undefined) query = query.where('target_id', '=', targetId);
  if (since !== undefined) query = query.where('at', '>=', since);
  if (until !== undefined) query = query.where('at', '<', until);
  return query;
}

export class AuditStore {
  constructor(private readonly db: Executor) {}

  /**
   * One page newest first: the records after `cursor.after` (older ones, an id from the previous page)
   * or, with `cursor.before`, the newest records before it (newer ones); has_more says whether there
   * are more in the direction paged.
   */
  async page(
    filter: AuditFilter,
    limit: number,
    cursor: { after?: string | undefined; before?: string | undefined } = {},
  ): Promise<{ has_more: boolean; data: AuditRecord[] }> {
    if (cursor.after !== undefined && cursor.before !== undefined)
      throw invalid('/ending_before', 'starting_after and ending_before cannot be given together');
    let query = filtered(this.db, filter);
    if (cursor.after !== undefined) query = query.where('seq', '<', await this.seqOf(cursor.after, 'starting_after'));
    if (cursor.before !== undefined) query = query.where('seq', '>', await this.seqOf(cursor.before, 'ending_before'));
    const newer = cursor.before !== undefined;
    const rows = await query
      .orderBy('seq', newer ? 'asc' : 'desc')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    if (newer) page.reverse();
    return { has_more: rows.length > limit, data: page.map(fromRow) };
  }

  /** The chain position of the record a cursor names. */
  private async seqOf(id: string, parameter: string): Promise<number> {
    const row = await this.db.selectFrom('audit_records').select('seq').where('id', '=', id).executeTakeFirst();
    if (row === undefined)
      throw invalid(`/${parameter}`, `${parameter} "${id.slice(0, 64)}" is not an audit record id`);
    return Number(row.seq);
  }

  /** The named subjects these records refer to, in one query (subjects.ts). */
  subjectsOf(records: readonly AuditRecord[]): Promise<AuditSubject[]> {
    return subjectsOf(this.db, records);
  }

  /** Every matching record, oldest first (chain order), read a batch at a time. */
  async *all(filter: AuditFilter = {}): AsyncGenerator<AuditRecord & { seq: number }> {
    let after = 0;
    for (;;) {
      const rows = await filtered(this.db, filter)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(EXPORT_BATCH)
        .execute();
      for (const row of rows) yield { ...fromRow(row), seq: Number(row.seq) };
      const last = rows.at(-1);
      if (last === undefined || rows.length < EXPORT_BATCH) return;
      after = Number(last.seq);
    }
  }
}
