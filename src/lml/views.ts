/**
 * Schools and lists in their public JSON shapes (camelCase, ISO times, null where absent; the types are
 * the schemas' in schemas.ts) from their rows, and the parsing of the JSON columns they are built from.
 * Admin and LML read routes share these shapes.
 */
import { isoTime } from '../clock.js';
import type { ListRow, SchoolRow } from '../db/schema.js';
import type { ListItem, ListView, SchoolView } from './schemas.js';

/** A list row joined with the name of its school (needed for `school` and `breadcrumb`). */
export type ListWithSchool = ListRow & { school_name: string };

export function schoolView(row: SchoolRow): SchoolView {
  return {
    identifier: row.identifier,
    name: row.name,
    type: row.type,
    location: row.location,
    brin: row.brin,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/** Tags are written only by this capability as a JSON array of strings; anything else reads as none. */
export function parseTags(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? (value as unknown[]).filter((tag): tag is string => typeof tag === 'string') : [];
}

export function parseItems(json: string): ListItem[] {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value)) return [];
  return (value as unknown[])
    .filter((raw): raw is Record<string, unknown> => typeof raw === 'object' && raw !== null)
    .map((raw) => ({
      ean: String(raw.ean),
      title: String(raw.title),
      author: typeof raw.author === 'string' ? raw.author : null,
      publisher: typeof raw.publisher === 'string' ? raw.publisher : null,
      mandatory: raw.mandatory !== false,
      remarks: typeof raw.remarks === 'string' ? raw.remarks : null,
    }));
}

export function listView(row: ListWithSchool): ListView {
  return {
    identifier: row.identifier,
    slug: row.slug,
    name: row.name,
    comment: row.comment,
    school: { identifier: row.school_identifier, name: row.school_name },
    schoolYear: row.school_year,
    duoCode: row.duo_code,
    breadcrumb: [row.school_name, ...parseTags(row.tags), row.name],
    status: row.status,
    imported: row.imported === 1,
    items: parseItems(row.items),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}
