/** Shared helpers of the LML tests: admin calls and the outbox rows they leave behind. */
import type { Harness } from '../support/harness.js';

/** Valid ISBN-13s (check digit verified by the offers EAN validator). */
export const EANS = [
  '9789001234560',
  '9789043036801',
  '9789006951219',
  '9780306406157',
  '9781861972712',
  '9789401487788',
] as const;

export const HEX32 = /^[0-9a-f]{32}$/;

export interface EventRowView {
  name: string;
  resource: string;
  identifier: string;
  payload: string;
}

export const payload = (type: string, resource: string, identifier: string): string =>
  JSON.stringify({ type, resource, identifier });

/** The row `events()` reads for the event `name` about `identifier`, its payload's type word `type`. */
export const eventRow = (name: string, type: string, identifier: string): EventRowView => {
  const resource = name.split('.')[0] ?? '';
  return { name, resource, identifier, payload: payload(type, resource, identifier) };
};

/**
 * The events table. Events of one transaction share created_at and have random ids, and delivery
 * never promises an order, so rows are compared sorted by (created_at, name, payload).
 */
export async function events(h: Harness): Promise<EventRowView[]> {
  return h.database.db.kysely
    .selectFrom('events')
    .select(['name', 'resource', 'identifier', 'payload'])
    .orderBy('created_at')
    .orderBy('name')
    .orderBy('payload')
    .execute();
}

/** Returns the events recorded since the last call and clears them, so each step is asserted alone. */
export async function takeEvents(h: Harness): Promise<EventRowView[]> {
  const rows = await events(h);
  await h.database.db.kysely.deleteFrom('deliveries').execute();
  await h.database.db.kysely.deleteFrom('events').execute();
  return rows;
}

export async function createSchool(
  h: Harness,
  body: Record<string, unknown> = {},
): Promise<{ identifier: string; name: string }> {
  const response = await h
    .asAdmin()
    .post('/api/admin/v1/schools', { name: 'Hogeschool Utrecht', type: 'HBO', ...body });
  if (response.statusCode !== 201) throw new Error(`school creation failed: ${response.body}`);
  return response.json();
}

export async function createList(
  h: Harness,
  school: string,
  body: Record<string, unknown> = {},
): Promise<{ identifier: string; slug: string; name: string }> {
  const response = await h.asAdmin().post('/api/admin/v1/lists', {
    school,
    name: 'Propedeuse ICT',
    items: [{ ean: EANS[0], title: 'Basisboek ICT' }],
    ...body,
  });
  if (response.statusCode !== 201) throw new Error(`list creation failed: ${response.body}`);
  return response.json();
}

export async function setStatus(h: Harness, identifier: string, status: string) {
  return h.asAdmin().post(`/api/admin/v1/lists/${identifier}/status`, { status });
}
