/**
 * Names for the portal (issue 34.9): what a delivery was about ("ICT jaar 1" of "Erasmus Lyceum")
 * instead of a 32-hex identifier, and the lists a subscription filter may follow. Lists and schools
 * are the same public data a client reads through the LML API; a deleted one has no name (null).
 */
import type { WebhookPayload } from '../delivery/schemas.js';
import { Problem } from '../errors.js';
import type { ListService } from '../lml/list-service.js';
import type { SchoolService } from '../lml/school-service.js';

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
    private readonly schools: SchoolService,
  ) {}

  /** The subject's name, or null for a test ping, another kind, or a list or school that is gone. */
  async name(payload: WebhookPayload): Promise<SubjectName | null> {
    try {
      if (payload.resource === 'list') {
        const list = await this.lists.get(payload.identifier);
        return { name: list.name, school: list.school.name };
      }
      if (payload.resource === 'school') return { name: (await this.schools.get(payload.identifier)).name };
    } catch (error) {
      if (!(error instanceof Problem && error.status === 404)) throw error;
    }
    return null;
  }

  /** Each delivery with its subject's name; a subject named by several deliveries is looked up once. */
  async nameAll<T extends { payload: WebhookPayload }>(
    deliveries: readonly T[],
  ): Promise<(T & { subject: SubjectName | null })[]> {
    const keyOf = (payload: WebhookPayload): string => `${payload.resource}:${payload.identifier}`;
    const subjects = new Map(deliveries.map((d) => [keyOf(d.payload), d.payload]));
    const names = new Map(
      await Promise.all([...subjects].map(async ([key, payload]) => [key, await this.name(payload)] as const)),
    );
    return deliveries.map((d) => ({ ...d, subject: names.get(keyOf(d.payload)) ?? null }));
  }

  async listChoices(): Promise<{ data: ListChoice[] }> {
    const page = await this.lists.page({ limit: LIST_CHOICES });
    return {
      data: page.data.map((list) => ({ identifier: list.identifier, name: list.name, school: list.school.name })),
    };
  }
}
