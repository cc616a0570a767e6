/**
 * The statuses a learning-material list can have: LML vocabulary that the event catalogue also names
 * (list.status carries the new status), so it sits below both, as ean.ts does for EAN codes. The
 * rules over them (transitions, input synonyms) are in lml/status.ts.
 */
export const LIST_STATUSES = ['created', 'validated', 'published', 'archived'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];
