/**
 * Ajv's errors as a person reads them. A value outside a union of literals (every enum of the API:
 * statuses, conditions, event names) makes Ajv report one "must be equal to constant" per literal and
 * then "must match a schema in anyOf"; those become one issue that names the allowed values.
 * An `enum` keyword's "must be equal to one of the allowed values" names them too.
 */

/** The part of an Ajv error this reads. */
export interface AjvIssue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params?: Record<string, unknown>;
  message?: string;
}

export interface ReadableIssue {
  instancePath: string;
  message: string;
  params?: Record<string, unknown>;
  /** The values the field accepts, for an enum or a union of literals. */
  allowed?: unknown[];
}

const listed = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join(', ');

export function readableIssues(issues: readonly AjvIssue[]): ReadableIssue[] {
  // Each anyOf whose branches all failed on `const`: the literals it allows.
  const unions = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'anyOf') continue;
    const branches = issues.filter(
      (other) =>
        other !== issue &&
        other.instancePath === issue.instancePath &&
        other.schemaPath.startsWith(`${issue.schemaPath}/`),
    );
    if (branches.length > 0 && branches.every((branch) => branch.keyword === 'const'))
      unions.set(
        issue.schemaPath,
        branches.map((branch) => branch.params?.allowedValue),
      );
  }
  const out: ReadableIssue[] = [];
  for (const issue of issues) {
    const inUnion = [...unions.keys()].some(
      (path) => issue.schemaPath.startsWith(`${path}/`) && issue.keyword === 'const',
    );
    if (inUnion) continue;
    const allowed =
      issue.keyword === 'anyOf'
        ? unions.get(issue.schemaPath)
        : issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues)
          ? (issue.params.allowedValues as unknown[])
          : undefined;
    out.push({
      instancePath: issue.instancePath,
      message: allowed === undefined ? (issue.message ?? 'is invalid') : `must be one of ${listed(allowed)}`,
      ...(issue.params === undefined ? {} : { params: issue.params }),
      ...(allowed === undefined ? {} : { allowed }),
    });
  }
  return out;
}
