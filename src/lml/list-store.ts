/** SQL for learning-material lists. Every read joins the school's name for `school` and `breadcrumb`. */
import type { Updateable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { ListRow, ListsTable } from '../db/schema.js';
import { afterCursor } from '../vocabulary/paging.js';
import type { PageRequest } from './school-store.js';
import type { ListStatus } from './status.js';
import type { ListWithSchool } from './views.js';

export interface ListFilter {
  school?: string | undefined;
  /** Only these statuses. */
  statuses: readonly ListStatus[];
}

/** What the structure tree needs of a list. */
export type ListNodeRow = Pick<ListRow, 'identifier' | 'name' | 'slug' | 'status' | 'tags'>;

export class ListStore {
  constructor(private readonly db: Executor) {}

  /** Lists with their school, the join every read of a list's school name goes through. */
  private withSchool() {
    return this.db.selectFrom('lists').innerJoin('schools', 'schools.identifier', 'lists.school_identifier');
  }

  private joined() {
    return this.withSchool().selectAll('lists').select('schools.name as school_name');
  }

  /** Whether a list with this identifier exists (a subscription's list filter names one). */
  async exists(identifier: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('lists')
      .select('identifier')
      .where('identifier', '=', identifier)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** How many lists are published (the operator's overview). */
  async countPublished(): Promise<number> {
    const row = await this.db
      .selectFrom('lists')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', 'published')
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  async insert(row: ListRow): Promise<void> {
    await this.db.insertInto('lists').values(row).execute();
  }

  find(identifier: string): Promise<ListWithSchool | undefined> {
    return this.joined().where('lists.identifier', '=', identifier).executeTakeFirst();
  }

  /** The names of the lists among `identifiers` that exist, with their school's (one query; none for an empty set). */
  async names(identifiers: readonly string[]): Promise<{ identifier: string; name: string; school_name: string }[]> {
    if (identifiers.length === 0) return [];
    return this.withSchool()
      .select(['lists.identifier', 'lists.name', 'schools.name as school_name'])
      .where('lists.identifier', 'in', identifiers)
      .execute();
  }

  /** Lists of one school with this name (bulk import matches them by school, tags and name). */
  findByName(school: string, name: string): Promise<ListWithSchool[]> {
    return this.joined().where('lists.school_identifier', '=', school).where('lists.name', '=', name).execute();
  }

  findBySlug(slug: string): Promise<ListWithSchool | undefined> {
    return this.joined().where('lists.slug', '=', slug).executeTakeFirst();
  }

  async slugTaken(slug: string): Promise<boolean> {
    const row = await this.db.selectFrom('lists').select('identifier').where('slug', '=', slug).executeTakeFirst();
    return row !== undefined;
  }

  async update(identifier: string, changes: Updateable<ListsTable>): Promise<void> {
    await this.db.updateTable('lists').set(changes).where('identifier', '=', identifier).execute();
  }

  /** Compare-and-set on the status, so two concurrent changes cannot both pass the transition check. */
  async changeStatus(identifier: string, from: ListStatus, to: ListStatus, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('lists')
      .set({ status: to, updated_at: now })
      .where('identifier', '=', identifier)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Oldest first, by (created_at, identifier), filtered. */
  page(filter: ListFilter, request: PageRequest): Promise<ListWithSchool[]> {
    let query = this.joined().where('lists.status', 'in', [...filter.statuses]);
    if (filter.school !== undefined) query = query.where('lists.school_identifier', '=', filter.school);
    const after = request.after;
    if (after !== undefined) {
      const cursor = { created: after.createdAt, id: after.identifier };
      query = query.where((eb) => afterCursor(eb, { created: 'lists.created_at', id: 'lists.identifier' }, cursor));
    }
    return query.orderBy('lists.created_at').orderBy('lists.identifier').limit(request.limit).execute();
  }

  /** Lists of one school that appear in the structure tree (everything but archived). */
  forStructure(schoolIdentifier: string): Promise<ListNodeRow[]> {
    return this.db
      .selectFrom('lists')
      .select(['identifier', 'name', 'slug', 'status', 'tags'])
      .where('school_identifier', '=', schoolIdentifier)
      .where('status', '!=', 'archived')
      .orderBy('name')
      .orderBy('identifier')
      .execute();
  }
}

/** A unique-constraint violation on lists.slug, as SQLite and PostgreSQL report it. */
export function isSlugCollision(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === 'lists_slug_key';
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('lists.slug');
}
