/**
 * The LML tree that apps show level by level as select boxes: SCHOOL → TAG → … → LIST. Tags are not
 * stored as rows; a TAG node is a distinct prefix of the `tags` paths of a school's lists, so its id
 * is derived: `tag_` + the school identifier + a hash of the path. It is stable as long as some
 * non-archived list carries that path, and the embedded school keeps a lookup to one school's lists.
 */
import { createHash } from 'node:crypto';
import { ChangeLogStore } from '../db/change-log.js';
import type { Db } from '../db/database.js';
import { isResourceIdentifier } from '../ids.js';
import { notFound } from '../problems/catalogue.js';
import { type ListNodeRow, ListStore } from './list-store.js';
import { SchoolDirectory } from './school-directory.js';
import { SchoolStore } from './school-store.js';
import { parseTags } from './views.js';

export type StructureNode =
  | { id: string; name: string; model: 'SCHOOL'; resource: { type: string } }
  | { id: string; name: string; model: 'TAG'; resource: null }
  | { id: string; name: string; model: 'LIST'; resource: { slug: string; status: string } };

const TAG_ID = /^tag_([0-9a-f]{32})([0-9a-f]{24})$/;

export function tagId(schoolIdentifier: string, path: readonly string[]): string {
  // JSON keeps the path unambiguous even when a tag itself contains a slash.
  const digest = createHash('sha256')
    .update(`${schoolIdentifier}/${JSON.stringify(path)}`)
    .digest('hex');
  return `tag_${schoolIdentifier}${digest.slice(0, 24)}`;
}

const byName = (a: { name: string; id: string }, b: { name: string; id: string }): number =>
  a.name.localeCompare(b.name, 'nl') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class StructureService {
  private readonly schools: SchoolStore;
  private readonly lists: ListStore;
  /** The first level, from memory (every school; see school-directory.ts). */
  private readonly directory: SchoolDirectory;

  constructor(db: Db) {
    this.schools = new SchoolStore(db.kysely);
    this.lists = new ListStore(db.kysely);
    this.directory = new SchoolDirectory(
      this.schools,
      new ChangeLogStore(db.kysely, 'school_changes'),
      db.dialect,
      (a, b) => byName({ name: a.name, id: a.identifier }, { name: b.name, id: b.identifier }),
    );
  }

  /** The children of `parent`: schools at the top, then tags and lists. Unknown parent → 404. */
  async children(parent?: string): Promise<StructureNode[]> {
    if (parent === undefined) {
      const schools = await this.directory.schools();
      return schools.map(
        (school): StructureNode => ({
          id: school.identifier,
          name: school.name,
          model: 'SCHOOL',
          resource: { type: school.type },
        }),
      );
    }
    const tag = TAG_ID.exec(parent);
    const schoolIdentifier = tag?.[1] ?? (isResourceIdentifier(parent) ? parent : undefined);
    const school = schoolIdentifier === undefined ? undefined : await this.schools.find(schoolIdentifier);
    if (school === undefined) throw notFound(`structure node ${parent}`);
    const lists = (await this.lists.forStructure(school.identifier)).map((row) => ({ row, tags: parseTags(row.tags) }));
    let path: string[] = [];
    if (tag !== undefined && tag !== null) {
      const found = findPath(school.identifier, parent, lists);
      if (found === undefined) throw notFound(`structure node ${parent}`);
      path = found;
    }
    return level(school.identifier, path, lists);
  }
}

/** The tag path whose id is `id`, among every prefix of every list's tags. */
function findPath(schoolIdentifier: string, id: string, lists: readonly { tags: string[] }[]): string[] | undefined {
  for (const { tags } of lists) {
    for (let depth = 1; depth <= tags.length; depth++) {
      const path = tags.slice(0, depth);
      if (tagId(schoolIdentifier, path) === id) return path;
    }
  }
  return undefined;
}

/** Below `path`: one TAG node per distinct next tag, then the lists whose path ends here. */
function level(
  schoolIdentifier: string,
  path: readonly string[],
  lists: readonly { row: ListNodeRow; tags: string[] }[],
): StructureNode[] {
  const tags = new Map<string, StructureNode>();
  const leaves: StructureNode[] = [];
  for (const { row, tags: listTags } of lists) {
    if (listTags.length < path.length || !path.every((tag, index) => listTags[index] === tag)) continue;
    const next = listTags[path.length];
    if (next === undefined) {
      leaves.push({
        id: row.identifier,
        name: row.name,
        model: 'LIST',
        resource: { slug: row.slug, status: row.status },
      });
    } else if (!tags.has(next)) {
      tags.set(next, { id: tagId(schoolIdentifier, [...path, next]), name: next, model: 'TAG', resource: null });
    }
  }
  return [...[...tags.values()].sort(byName), ...leaves.sort(byName)];
}
