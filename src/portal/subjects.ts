/**
 * Names for the portal: what a delivery was about ("ICT jaar 1" of "Erasmus Lyceum")
 * instead of a 32-hex identifier, and the lists a subscription filter may follow. Lists and schools
 * are the same public data a client reads through the LML API; a deleted one has no name (null).
 */
import type { WebhookPayload } from '../delivery/schemas.js';
import type { ListService } from '../lml/list-service.js';
import type { ListStore } from '../lml/list-store.js';
import type { SchoolStore } from '../lml/school-store.js';

/** A delivery's subject by name; `school` for a list. */
export interface SubjectName {
  name: string;
  school?: string;
}

/** A list as the filter's picker offers it. */
export interface ListChoice {
  identifier: string;
  name: string;
  school: string;
}

/** The picker offers this many lists, newest first; any other list can be typed by its identifier. */
export const LIST_CHOICES = 100;

export class PortalSubjects {
  constructor(
    private readonly lists: ListService,
    private readonly names: { lists: ListStore; schools: SchoolStore },
  ) {}

  /** The subject's name, or null for a test ping, another kind, or a list or school that is gone. */
  async name(payload: WebhookPayload): Promise<SubjectName | null> {
    const [named] = await this.nameAll([{ payload }]);
    return named?.subject ?? null;
  }

  /**
   * Each delivery with its subject's name: a page's lists and schools are named in one query each,
   * however many deliveries (a log of 50 list changes would otherwise be 50 look-ups).
   */
  async nameAll<T extends { payload: WebhookPayload }>(
    deliveries: readonly T[],
  ): Promise<(T & { subject: SubjectName | null })[]> {
    const identifiersOf = (resource: string): string[] => [
      ...new Set(deliveries.filter((d) => d.payload.resource === resource).map((d) => d.payload.identifier)),
    ];
    const [lists, schools] = await Promise.all([
      this.names.lists.names(identifiersOf('list')),
      this.names.schools.names(identifiersOf('school')),
    ]);
    const named = new Map<string, SubjectName>([
      ...lists.map((list) => [`list:${list.identifier}`, { name: list.name, school: list.school_name }] as const),
      ...schools.map((school) => [`school:${school.identifier}`, { name: school.name }] as const),
    ]);
    return deliveries.map((d) => ({
      ...d,
      subject: named.get(`${d.payload.resource}:${d.payload.identifier}`) ?? null,
    }));
  }

  async listChoices(): Promise<{ data: ListChoice[] }> {
    const page = await this.lists.page({ limit: LIST_CHOICES });
    return {
      data: page.data.map((list) => ({ identifier: list.identifier, name: list.name, school: list.school.name })),
    };
  }
}
