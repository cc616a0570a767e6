/**
 * What to say when an import names a school that does not exist: the school's
 * identifier when it was given by name, otherwise the closest school names with their identifiers,
 * and where the whole list is.
 */

export interface SchoolName {
  identifier: string;
  name: string;
}

/** Edit distance (insertions, deletions, substitutions), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++)
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (x[i - 1] === y[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[y.length] ?? 0;
}

const WHERE = 'the schools and their identifiers: GET /api/lml/v1/schools';

/** The reason an entry's unknown `school` is refused, with the help to fix it. */
export function unknownSchool(given: string, schools: readonly SchoolName[]): string {
  const named = schools.filter((school) => school.name.trim().toLowerCase() === given.trim().toLowerCase());
  if (named.length > 0)
    return `school ${JSON.stringify(given)} is a name; give the school's identifier: ${named
      .map((school) => school.identifier)
      .join(' or ')}`;
  const closest = schools
    .map((school) => ({ school, distance: editDistance(given, school.name) }))
    .filter(({ school, distance }) => distance <= Math.max(3, Math.floor(school.name.length / 2)))
    .sort((a, b) => a.distance - b.distance || a.school.name.localeCompare(b.school.name))
    .slice(0, 3)
    .map(({ school }) => `"${school.name}" (${school.identifier})`);
  return closest.length > 0
    ? `school ${JSON.stringify(given)} does not exist; closest: ${closest.join(', ')}; ${WHERE}`
    : `school ${JSON.stringify(given)} does not exist; ${WHERE}`;
}
