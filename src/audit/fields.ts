/**
 * What the audit log keeps of a resource whose fields it compares: scalar fields as they are, a
 * list's items as a count (list contents are not copied), never a payload.
 */
import type { JsonValue } from './canonical.js';

export type Fields = Record<string, JsonValue>;

export interface ListLike {
  name: string;
  comment: string | null;
  school: { identifier: string };
  schoolYear: number | null;
  duoCode: string | null;
  status: string;
  items: readonly unknown[];
}

export function listFields(list: ListLike): Fields {
  return {
    school: list.school.identifier,
    name: list.name,
    comment: list.comment,
    schoolYear: list.schoolYear,
    duoCode: list.duoCode,
    status: list.status,
    items: list.items.length,
  };
}

/** Copies the named scalar fields of a resource view (values that are not scalars are left out). */
export function scalarFields<T extends object>(view: T, names: readonly (keyof T & string)[]): Fields {
  const fields: Fields = {};
  for (const name of names) {
    const value = view[name] as unknown;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[name] = value as JsonValue;
  }
  return fields;
}
