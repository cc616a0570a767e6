/**
 * What a delivery was about, by name: "vwo 4 (Erasmus Lyceum)" instead of a 32-hex identifier. Names
 * are looked up through the admin API once per page and subject; a deleted or unknown resource (and a
 * test ping) shows its kind and the start of its identifier.
 */
import type { Delivery } from '../common/deliveries.js';
import { api } from './app.js';

interface Named {
  name: string;
  /** Lists name their school. */
  school?: { name: string };
}

const PATHS: Readonly<Record<string, string>> = { school: '/schools/', list: '/lists/' };
const keyOf = (d: Delivery): string => `${d.payload.resource}:${d.payload.identifier}`;

/** Labels for the subjects of these deliveries, keyed by `resource:identifier`. */
export async function subjectLabels(deliveries: readonly Delivery[]): Promise<Map<string, string>> {
  const subjects = [...new Map(deliveries.map((d) => [keyOf(d), d.payload])).entries()];
  const labels = new Map<string, string>();
  await Promise.all(
    subjects.map(async ([key, { resource, identifier }]) => {
      const path = PATHS[resource];
      if (path === undefined) return;
      const result = await api<Named>('GET', path + encodeURIComponent(identifier));
      if (!result.ok) return;
      const { name, school } = result.data;
      labels.set(key, school === undefined ? name : `${name} (${school.name})`);
    }),
  );
  return labels;
}

/** The label of one delivery's subject: its name when known, else its kind and identifier. */
export function subjectOf(labels: ReadonlyMap<string, string>, d: Delivery): string {
  return labels.get(keyOf(d)) ?? `${d.payload.resource} ${d.payload.identifier.slice(0, 8)}…`;
}
