/**
 * `lists import <file.json>`: a JSON array of lists, each shaped like the admin API's POST /lists
 * body plus an optional target `status`. Every entry is validated first (the same schema, EAN and
 * school checks and status table as the API), and nothing is written when any entry is bad; then the
 * lists are written in batches, each batch in one transaction with its events.
 *
 * Stable key: a list is the same list when its school, tags and name are the same. A second run of
 * the same file finds those lists and changes only what differs (no event when nothing changes).
 */

import { Type } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import type { Initiator } from '../audit/initiator.js';
import type { Db } from '../db/database.js';
import type { EventfulWork } from '../events/outbox.js';
import { Problem } from '../problems/catalogue.js';
import { normaliseItems, normaliseTags } from './items.js';
import type { ListInput } from './list-inputs.js';
import type { ListService } from './list-service.js';
import { ListStore } from './list-store.js';
import { ListCreateBody } from './schemas.js';
import { unknownSchool } from './school-suggest.js';
import { assertTransition, canonicalStatus, isListStatus, type ListStatus } from './status.js';
import { parseTags } from './views.js';

export const LIST_IMPORT_BATCH_SIZE = 100;

const ImportEntry = Type.Object(
  {
    ...ListCreateBody.properties,
    status: Type.Optional(Type.String({ description: 'target status, e.g. published' })),
  },
  { additionalProperties: false },
);

/** One problem with one entry of the file: its 1-based position in the array and the line it starts on. */
export interface ListImportError {
  entry: number;
  line: number;
  reason: string;
}

export interface ListImportRow {
  line: number;
  input: ListInput;
  status: ListStatus | undefined;
  /** The list this entry matches from an earlier run, if any. */
  existing: { identifier: string; status: ListStatus } | undefined;
}

export interface ListImportSummary {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  statusChanged: number;
}

/** The 1-based line on which each top-level array element starts. */
export function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expectingValue = false;
  for (const char of text) {
    if (char === '\n') line++;
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (/\s/.test(char)) continue;
    if (depth === 1 && expectingValue && char !== ']') {
      lines.push(line);
      expectingValue = false;
    }
    if (char === '"') inString = true;
    else if (char === '[' || char === '{') {
      depth++;
      if (depth === 1) expectingValue = true;
    } else if (char === ']' || char === '}') depth--;
    else if (char === ',' && depth === 1) expectingValue = true;
  }
  return lines;
}

/** One sentence per problem: a Problem listing field errors gives one per field, not its summary and the list. */
const problemTexts = (error: unknown): string[] => {
  if (error instanceof Problem) {
    const fields = Array.isArray(error.extensions.errors)
      ? (error.extensions.errors as { path?: string; message?: string }[]).map((e) =>
          `${(e.path ?? '').replace(/^\//, '')} ${e.message ?? ''}`.trim(),
        )
      : [];
    return fields.length > 0 ? fields : [error.detail ?? error.message];
  }
  return [error instanceof Error ? error.message : String(error)];
};

/** A schema complaint as a sentence about the field: "name is missing" rather than "name Expected required property". */
function schemaText(field: string, type: ValueErrorType, message: string): string {
  if (type === ValueErrorType.ObjectRequiredProperty) return `${field} is missing`;
  if (type === ValueErrorType.ObjectAdditionalProperties) return `${field} is not a field of a list`;
  return `${field}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}

export class ListImporter {
  constructor(
    private readonly db: Db,
    private readonly work: EventfulWork,
    private readonly lists: ListService,
  ) {}

  /** Parses and validates the whole file against the database as it is now. */
  async validate(text: string): Promise<{ rows: ListImportRow[]; errors: ListImportError[] }> {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      return {
        rows: [],
        errors: [
          { entry: 0, line: 1, reason: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` },
        ],
      };
    }
    const whole = (reason: string) => ({ rows: [], errors: [{ entry: 0, line: 1, reason }] });
    if (!Array.isArray(data)) return whole('expected a JSON array of lists');
    if (data.length === 0) return whole('the array is empty');
    const lines = elementLines(text);
    const store = new ListStore(this.db.kysely);
    const schoolNames = await this.db.kysely.selectFrom('schools').select(['identifier', 'name']).execute();
    const schools = new Set(schoolNames.map((row) => row.identifier));
    const rows: ListImportRow[] = [];
    const errors: ListImportError[] = [];
    const seen = new Map<string, number>();
    for (const [index, entry] of data.entries()) {
      const line = lines[index] ?? 1;
      if (!Value.Check(ImportEntry, entry)) {
        // The first complaint per property is the useful one (TypeBox adds follow-ups such as "Expected string").
        const byPath = new Map<string, string>();
        for (const e of Value.Errors(ImportEntry, entry))
          if (!byPath.has(e.path))
            byPath.set(e.path, schemaText(e.path === '' ? 'entry' : e.path.slice(1), e.type, e.message));
        for (const reason of [...byPath.values()].slice(0, 5)) errors.push({ entry: index + 1, line, reason });
        continue;
      }
      const { status: statusWord, ...input } = entry;
      const reasons: string[] = [];
      if (!schools.has(input.school)) reasons.push(unknownSchool(input.school, schoolNames));
      let tags: string[] = [];
      try {
        tags = normaliseTags(input.tags ?? []);
        normaliseItems(input.items ?? []);
      } catch (error) {
        reasons.push(...problemTexts(error));
      }
      const status = statusWord === undefined ? undefined : canonicalStatus(statusWord);
      if (statusWord !== undefined && status === undefined)
        reasons.push(`status ${JSON.stringify(statusWord)} is not a list status`);
      const key = JSON.stringify([input.school, tags, input.name.trim()]);
      const earlier = seen.get(key);
      if (earlier !== undefined) reasons.push(`it has the same school, tags and name as entry ${earlier}`);
      seen.set(key, index + 1);
      let existing: ListImportRow['existing'];
      if (reasons.length === 0) {
        const match = (await store.findByName(input.school, input.name.trim())).find(
          (row) => JSON.stringify(parseTags(row.tags)) === JSON.stringify(tags),
        );
        if (match !== undefined && isListStatus(match.status))
          existing = { identifier: match.identifier, status: match.status };
        const from: ListStatus = existing?.status ?? 'created';
        if (status !== undefined && status !== from) {
          try {
            assertTransition(from, status);
          } catch (error) {
            reasons.push(...problemTexts(error));
          }
        }
      }
      if (reasons.length > 0) for (const reason of reasons) errors.push({ entry: index + 1, line, reason });
      else rows.push({ line, input, status, existing });
    }
    return { rows, errors };
  }

  /** Imports in batches, each recorded in its own transaction as `lists.imported` of `file` by `by`. */
  async import(
    rows: readonly ListImportRow[],
    by: { initiator: Initiator; file: string },
    onProgress: (done: number, total: number) => void = () => undefined,
    batchSize = LIST_IMPORT_BATCH_SIZE,
  ): Promise<ListImportSummary> {
    const summary: ListImportSummary = { rows: rows.length, created: 0, updated: 0, unchanged: 0, statusChanged: 0 };
    for (let start = 0; start < rows.length; start += batchSize) {
      const batch = rows.slice(start, start + batchSize);
      const counts = await this.work.run(by.initiator, async (change) => {
        const c = { created: 0, updated: 0, unchanged: 0, statusChanged: 0 };
        for (const row of batch) {
          let identifier: string;
          let from: ListStatus;
          if (row.existing === undefined) {
            // `imported` says how the list came to be, so a list this import creates is imported, whatever the entry says.
            const created = await this.lists.createIn(change, { ...row.input, imported: true });
            identifier = created.identifier;
            from = 'created';
            c.created++;
          } else {
            identifier = row.existing.identifier;
            from = row.existing.status;
            const { school: _school, imported: _imported, ...patch } = row.input;
            const { changed } = await this.lists.updateIn(change, identifier, patch);
            if (changed) c.updated++;
            else c.unchanged++;
          }
          if (row.status !== undefined && row.status !== from) {
            await this.lists.changeStatusIn(change, identifier, row.status);
            c.statusChanged++;
          }
        }
        if (c.created + c.updated + c.statusChanged > 0)
          change.record('lists.imported', by.file, {
            entries: { before: null, after: `${start + 1}-${start + batch.length} of ${rows.length}` },
            created: { before: null, after: c.created },
            updated: { before: null, after: c.updated },
            statusChanged: { before: null, after: c.statusChanged },
          });
        return c;
      });
      summary.created += counts.created;
      summary.updated += counts.updated;
      summary.unchanged += counts.unchanged;
      summary.statusChanged += counts.statusChanged;
      onProgress(Math.min(start + batchSize, rows.length), rows.length);
    }
    return summary;
  }
}
