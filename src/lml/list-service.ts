/**
 * Rules for learning-material lists: content, slugs and the status lifecycle. Every write is one unit
 * of work (src/changes/), so the change, its list.* events and its audit record commit together or not at all.
 */
import { listFields } from '../audit/fields.js';
import type { Initiator } from '../audit/initiator.js';
import { changesBetween } from '../audit/recorder.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { ListRow } from '../db/schema.js';
import { events } from '../events/emitters.js';
import type { Emit, EventfulChange, EventfulWork } from '../events/outbox.js';
import { ids, isResourceIdentifier } from '../ids.js';
import { notFound, Problem } from '../problems/catalogue.js';
import { type Page, toPage } from '../vocabulary/paging.js';
import { badCursor, fieldProblem, optionalText, requiredText } from './input.js';
import { normaliseItems, normaliseTags } from './items.js';
import {
  canonicalItems,
  canonicalTags,
  type ListInput,
  type ListPatch,
  type ListQuery,
  type ListUpdate,
  schoolYear,
} from './list-inputs.js';
import { isSlugCollision, ListStore } from './list-store.js';
import type { ListView } from './schemas.js';
import { SchoolStore } from './school-store.js';
import {
  assertTransition,
  canonicalStatus,
  LIST_STATUS_INPUTS,
  LIST_STATUSES,
  type ListStatus,
  storedStatus,
} from './status.js';
import { type ListWithSchool, listView } from './views.js';

/** Attempts at a fresh slug before giving up; 32^6 slugs make even two attempts rare. */
const SLUG_ATTEMPTS = 5;

/** What a list's change writes with: its transaction and its event emitter. */
type WithEvents = Pick<EventfulChange, 'trx' | 'emit'>;

export class ListService {
  private readonly reader: ListStore;

  constructor(
    db: Db,
    private readonly work: EventfulWork,
    private readonly clock: Clock,
    /** Injected so tests can force slug collisions. */
    private readonly mintSlug: () => string = ids.listSlug,
  ) {
    this.reader = new ListStore(db.kysely);
  }

  async create(input: ListInput, by: Initiator): Promise<ListView> {
    // Validated before the first attempt, so bad input fails fast and the same way every time.
    normaliseTags(input.tags ?? []);
    normaliseItems(input.items ?? []);
    requiredText(input.name, 'name');
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.work.run(by, async (change) => {
          const list = await this.createIn(change, input);
          change.record('list.created', list.identifier, changesBetween(null, listFields(list)));
          return list;
        });
      } catch (error) {
        // Another writer took the slug between our check and our insert: the whole transaction
        // rolled back (nothing of it is kept), so simply try again with a new slug.
        if (attempt < SLUG_ATTEMPTS && isSlugCollision(error)) continue;
        throw error;
      }
    }
  }

  /** create() as part of a caller's change (bulk import: many lists, one transaction per batch). */
  async createIn({ trx, emit }: WithEvents, input: ListInput): Promise<ListView> {
    const tags = normaliseTags(input.tags ?? []);
    const items = normaliseItems(input.items ?? []);
    const name = requiredText(input.name, 'name');
    const school = isResourceIdentifier(input.school) ? await new SchoolStore(trx).find(input.school) : undefined;
    if (school === undefined) throw fieldProblem('/school', `names no school: ${input.school}`);
    const store = new ListStore(trx);
    const now = this.clock.now();
    const row: ListRow = {
      identifier: ids.resourceIdentifier(),
      slug: await this.freeSlug(store),
      school_identifier: school.identifier,
      name,
      comment: optionalText(input.comment),
      school_year: schoolYear(input.schoolYear),
      duo_code: optionalText(input.duoCode),
      tags: JSON.stringify(tags),
      status: 'created',
      imported: input.imported === true ? 1 : 0,
      items: JSON.stringify(items),
      created_at: now,
      updated_at: now,
    };
    await store.insert(row);
    emit(events.listCreated(row.identifier));
    emit(events.listStatus(row.identifier, 'created'));
    return listView({ ...row, school_name: school.name });
  }

  /** Applies content changes; emits list.updated only when something really changes. */
  async update(identifier: string, patch: ListPatch, by: Initiator): Promise<ListView> {
    const { list } = await this.work.run(by, async (change) => {
      const before = await new ListStore(change.trx).find(identifier);
      const update = await this.updateIn(change, identifier, patch);
      if (update.changed && before !== undefined)
        change.record('list.updated', identifier, listChanges(before, update.list));
      return update;
    });
    return list;
  }

  /** update() as part of a caller's change; says whether anything changed. */
  async updateIn({ trx, emit }: WithEvents, identifier: string, patch: ListPatch): Promise<ListUpdate> {
    const store = new ListStore(trx);
    const current = await findOr404(store, identifier);
    const next: ListWithSchool = {
      ...current,
      ...(patch.name === undefined ? {} : { name: requiredText(patch.name, 'name') }),
      ...(patch.comment === undefined ? {} : { comment: optionalText(patch.comment) }),
      ...(patch.schoolYear === undefined ? {} : { school_year: schoolYear(patch.schoolYear) }),
      ...(patch.duoCode === undefined ? {} : { duo_code: optionalText(patch.duoCode) }),
      ...(patch.tags === undefined ? {} : { tags: JSON.stringify(normaliseTags(patch.tags)) }),
      ...(patch.items === undefined ? {} : { items: JSON.stringify(normaliseItems(patch.items)) }),
    };
    const changed =
      next.name !== current.name ||
      next.comment !== current.comment ||
      next.school_year !== current.school_year ||
      next.duo_code !== current.duo_code ||
      canonicalTags(next.tags) !== canonicalTags(current.tags) ||
      canonicalItems(next.items) !== canonicalItems(current.items);
    if (!changed) return { list: listView(current), changed: false };
    next.updated_at = this.clock.now();
    const { name, comment, school_year, duo_code, tags, items, updated_at } = next;
    await store.update(identifier, { name, comment, school_year, duo_code, tags, items, updated_at });
    emit(events.listUpdated(current.identifier));
    return { list: listView(next), changed: true };
  }

  /**
   * Moves a list to another status (see status.ts for the table). The same status again is a no-op:
   * 200 with the unchanged list and no event.
   */
  async changeStatus(identifier: string, word: string, by: Initiator): Promise<ListView> {
    const target = canonicalStatus(word);
    if (target === undefined) throw fieldProblem('/status', `must be one of ${LIST_STATUS_INPUTS.join(', ')}`);
    return this.work.run(by, async (change) => {
      const before = await new ListStore(change.trx).find(identifier);
      const list = await this.changeStatusIn(change, identifier, target);
      if (before !== undefined && before.status !== list.status)
        change.record('list.status.changed', identifier, {
          status: { before: before.status, after: list.status },
        });
      return list;
    });
  }

  /** changeStatus() as part of a caller's change. */
  async changeStatusIn({ trx, emit }: WithEvents, identifier: string, target: ListStatus): Promise<ListView> {
    const store = new ListStore(trx);
    const current = await findOr404(store, identifier);
    const from = storedStatus(current);
    if (from === target) return listView(current);
    assertTransition(from, target);
    const now = this.clock.now();
    if (!(await store.changeStatus(current.identifier, from, target, now))) {
      throw new Problem(
        'conflict',
        'the list status was changed by another request at the same time; read it and try again',
      );
    }
    emitStatus(emit, current.identifier, target);
    return listView({ ...current, status: target, updated_at: now });
  }

  /** By identifier, or by slug (case-insensitive). Archived lists are found too. */
  async get(identifierOrSlug: string): Promise<ListView> {
    const row = isResourceIdentifier(identifierOrSlug)
      ? await this.reader.find(identifierOrSlug)
      : /^[A-Za-z0-9]{1,32}$/.test(identifierOrSlug)
        ? await this.reader.findBySlug(identifierOrSlug.toUpperCase())
        : undefined;
    if (row === undefined) throw notFound(`list ${identifierOrSlug}`);
    return listView(row);
  }

  async page(query: ListQuery): Promise<Page<ListView>> {
    let statuses: readonly ListStatus[] = LIST_STATUSES.filter((status) => status !== 'archived');
    if (query.status !== undefined) {
      const status = canonicalStatus(query.status);
      if (status === undefined) {
        throw new Problem('validation-failed', `status ${query.status} is not a list status`, {
          errors: [
            { location: 'querystring', path: '/status', message: `must be one of ${LIST_STATUS_INPUTS.join(', ')}` },
          ],
        });
      }
      statuses = [status];
    }
    let after: { createdAt: number; identifier: string } | undefined;
    if (query.startingAfter !== undefined) {
      const cursor = isResourceIdentifier(query.startingAfter)
        ? await this.reader.find(query.startingAfter)
        : undefined;
      if (cursor === undefined) throw badCursor(query.startingAfter, 'list');
      after = { createdAt: cursor.created_at, identifier: cursor.identifier };
    }
    const rows = await this.reader.page({ school: query.school, statuses }, { limit: query.limit + 1, after });
    return toPage(rows, query.limit, listView);
  }

  private async freeSlug(store: ListStore): Promise<string> {
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      const slug = this.mintSlug();
      if (!(await store.slugTaken(slug))) return slug;
    }
    throw new Problem('conflict', 'could not find a free list slug; try again');
  }
}

/** list.status carries the new status word; a publication is also announced as list.published. */
function emitStatus(emit: Emit, identifier: string, status: ListStatus): void {
  emit(events.listStatus(identifier, status));
  if (status === 'published') emit(events.listPublished(identifier));
}

/** The fields of a list that changed, its items as a count (src/audit/fields.ts). */
function listChanges(before: ListWithSchool, after: ListView) {
  return changesBetween(listFields(listView(before)), listFields(after));
}

async function findOr404(store: ListStore, identifier: string): Promise<ListWithSchool> {
  const row = isResourceIdentifier(identifier) ? await store.find(identifier) : undefined;
  if (row === undefined) throw notFound(`list ${identifier}`);
  return row;
}
