/**
 * Rules for schools. Every write is one unit of work (src/changes/), so the change and its
 * school.created / school.modified event commit together or not at all.
 */
import type { Initiator } from '../audit/initiator.js';
import { changesBetween } from '../audit/recorder.js';
import type { Clock } from '../clock.js';
import { ChangeLogStore } from '../db/change-log.js';
import type { Db } from '../db/database.js';
import type { SchoolRow } from '../db/schema.js';
import { events } from '../events/emitters.js';
import type { EventfulWork } from '../events/outbox.js';
import { ids, isResourceIdentifier } from '../ids.js';
import { notFound } from '../problems/catalogue.js';
import { type Page, type PageQuery, toPage } from '../vocabulary/paging.js';
import { badCursor, fieldProblem, optionalText, requiredText } from './input.js';
import { SCHOOL_TYPES } from './model.js';
import type { SchoolView } from './schemas.js';
import { SchoolStore } from './school-store.js';
import { schoolView } from './views.js';

export interface SchoolInput {
  name: string;
  type: string;
  location?: string | null | undefined;
  brin?: string | null | undefined;
}

export type SchoolPatch = Partial<SchoolInput>;

/** BRIN: the Dutch institution code, two digits and two letters or digits, e.g. 27PZ. */
const BRIN = /^[0-9]{2}[A-Z0-9]{2}$/;

export class SchoolService {
  private readonly reader: SchoolStore;
  /** Pruned by school writes too, so the log stays small on nodes that never answer the structure tree. */
  private readonly changes: ChangeLogStore;

  constructor(
    db: Db,
    private readonly work: EventfulWork,
    private readonly clock: Clock,
  ) {
    this.reader = new SchoolStore(db.kysely);
    this.changes = new ChangeLogStore(db.kysely, 'school_changes');
  }

  async create(input: SchoolInput, by: Initiator): Promise<SchoolView> {
    const now = this.clock.now();
    const row: SchoolRow = {
      identifier: ids.resourceIdentifier(),
      name: requiredText(input.name, 'name'),
      type: schoolType(input.type),
      location: optionalText(input.location),
      brin: brin(input.brin),
      created_at: now,
      updated_at: now,
    };
    await this.work.run(by, async ({ trx, emit, record }) => {
      await new SchoolStore(trx).insert(row);
      emit(events.schoolCreated(row.identifier));
      record('school.created', row.identifier, changesBetween(null, schoolFields(row)));
    });
    // Best effort, after the commit: a failed prune must not fail the create (the next one retries).
    // Wall-clock time, as the change log's triggers record it (not the injected clock).
    await this.changes.pruneIfDue(Date.now()).catch(() => undefined);
    return schoolView(row);
  }

  /** Applies the given fields; emits school.modified only when a value really changes. */
  async update(identifier: string, patch: SchoolPatch, by: Initiator): Promise<SchoolView> {
    return this.work.run(by, async ({ trx, emit, record }) => {
      const store = new SchoolStore(trx);
      const current = await findOr404(store, identifier);
      const next: SchoolRow = {
        ...current,
        ...(patch.name === undefined ? {} : { name: requiredText(patch.name, 'name') }),
        ...(patch.type === undefined ? {} : { type: schoolType(patch.type) }),
        ...(patch.location === undefined ? {} : { location: optionalText(patch.location) }),
        ...(patch.brin === undefined ? {} : { brin: brin(patch.brin) }),
      };
      const changed =
        next.name !== current.name ||
        next.type !== current.type ||
        next.location !== current.location ||
        next.brin !== current.brin;
      if (!changed) return schoolView(current);
      next.updated_at = this.clock.now();
      await store.update(identifier, {
        name: next.name,
        type: next.type,
        location: next.location,
        brin: next.brin,
        updated_at: next.updated_at,
      });
      emit(events.schoolModified(identifier));
      record('school.updated', identifier, changesBetween(schoolFields(current), schoolFields(next)));
      return schoolView(next);
    });
  }

  async get(identifier: string): Promise<SchoolView> {
    return schoolView(await findOr404(this.reader, identifier));
  }

  async page(query: PageQuery): Promise<Page<SchoolView>> {
    let after: { createdAt: number; identifier: string } | undefined;
    if (query.startingAfter !== undefined) {
      const cursor = isResourceIdentifier(query.startingAfter)
        ? await this.reader.find(query.startingAfter)
        : undefined;
      if (cursor === undefined) throw badCursor(query.startingAfter, 'school');
      after = { createdAt: cursor.created_at, identifier: cursor.identifier };
    }
    const rows = await this.reader.page({ limit: query.limit + 1, after });
    return toPage(rows, query.limit, schoolView);
  }
}

/** What the audit log keeps of a school: its own fields. */
const schoolFields = (row: SchoolRow) => ({ name: row.name, type: row.type, location: row.location, brin: row.brin });

async function findOr404(store: SchoolStore, identifier: string): Promise<SchoolRow> {
  const row = isResourceIdentifier(identifier) ? await store.find(identifier) : undefined;
  if (row === undefined) throw notFound(`school ${identifier}`);
  return row;
}

function schoolType(value: string): string {
  const type = value.trim().toUpperCase();
  if (!(SCHOOL_TYPES as readonly string[]).includes(type))
    throw fieldProblem('/type', `must be one of ${SCHOOL_TYPES.join(', ')}`);
  return type;
}

function brin(value: string | null | undefined): string | null {
  const code = optionalText(value)?.toUpperCase() ?? null;
  if (code !== null && !BRIN.test(code))
    throw fieldProblem('/brin', 'must be a BRIN code: two digits and two letters or digits, e.g. 27PZ');
  return code;
}
