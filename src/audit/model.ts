/**
 * What the audit page and the records' readers share below the schemas: the kinds of subject a page
 * names, and the fields of a record's changes that hold another subject's id. The console's pages
 * import it too, so a field named here is named on the page without a second list.
 */

/** The kinds of subject that have a name (src/audit/subjects.ts reads them). */
export const NAMED_SUBJECTS = ['client', 'school', 'list', 'subscription', 'operator', 'api-token'] as const;
export type NamedSubject = (typeof NAMED_SUBJECTS)[number];

export const isNamedSubject = (type: string): type is NamedSubject =>
  (NAMED_SUBJECTS as readonly string[]).includes(type);

/** By a record's target type: the fields of its changes that hold the id of another subject, and its kind. */
export const SUBJECT_FIELDS: Readonly<Record<string, Readonly<Record<string, NamedSubject | 'delivery'>>>> = {
  list: { school: 'school' },
  subscription: { client: 'client', delivery: 'delivery' },
};
