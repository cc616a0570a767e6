/** SQL for schools. Works with the root connection or a change's transaction. */
import type { Updateable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { SchoolRow, SchoolsTable } from '../db/schema.js';
import { afterCursor } from '../vocabulary/paging.js';

export interface PageRequest {
  limit: number;
  /** Keyset cursor: the position of the last row of the previous page. */
  after?: { createdAt: number; identifier: string } | undefined;
}

/** What the school directory keeps of a school. */
const DIRECTORY_COLUMNS = ['identifier', 'name', 'type'] as const;
export type DirectoryEntry = Pick<SchoolRow, (typeof DIRECTORY_COLUMNS)[number]>;

export class SchoolStore {
  constructor(private readonly db: Executor) {}

  async insert(row: SchoolRow): Promise<void> {
    await this.db.insertInto('schools').values(row).execute();
  }

  find(identifier: string): Promise<SchoolRow | undefined> {
    return this.db.selectFrom('schools').selectAll().where('identifier', '=', identifier).executeTakeFirst();
  }

  /** The names of the schools among `identifiers` that exist (one query; none for an empty set). */
  async names(identifiers: readonly string[]): Promise<{ identifier: string; name: string }[]> {
    if (identifiers.length === 0) return [];
    return this.db
      .selectFrom('schools')
      .select(['identifier', 'name'])
      .where('identifier', 'in', identifiers)
      .execute();
  }

  async update(identifier: string, changes: Updateable<SchoolsTable>): Promise<void> {
    await this.db.updateTable('schools').set(changes).where('identifier', '=', identifier).execute();
  }

  /** Oldest first, by (created_at, identifier) so the cursor is stable even for equal timestamps. */
  page(request: PageRequest): Promise<SchoolRow[]> {
    let query = this.db.selectFrom('schools').selectAll();
    const after = request.after;
    if (after !== undefined) {
      const cursor = { created: after.createdAt, id: after.identifier };
      query = query.where((eb) => afterCursor(eb, { created: 'created_at', id: 'identifier' }, cursor));
    }
    return query.orderBy('created_at').orderBy('identifier').limit(request.limit).execute();
  }

  /** Every school, with what the first level of the structure tree shows (the school directory). */
  directory(): Promise<DirectoryEntry[]> {
    return this.db.selectFrom('schools').select(DIRECTORY_COLUMNS).execute();
  }

  /** These schools' directory entries (a school that is gone has none). */
  directoryEntries(identifiers: readonly string[]): Promise<DirectoryEntry[]> {
    if (identifiers.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('schools').select(DIRECTORY_COLUMNS).where('identifier', 'in', identifiers).execute();
  }
}
