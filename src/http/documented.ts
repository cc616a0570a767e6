/**
 * A rule the API document states for a value that the route's schema leaves to the service. Some rules
 * are checked by the service with an answer of its own (an unknown event lists the accepted names, an
 * EAN names its wrong check digit, a URL is parsed the way the delivery worker dials it), so the
 * validator must not refuse first; the document still states them exactly, from the same constants the
 * service checks with. The rule rides on the schema under a symbol, which validators and serialisers
 * never see, and only the OpenAPI builder (openapi/operations.ts) merges it in.
 *
 * ```ts
 * event: documentedAs(Type.String({ maxLength: 100 }), { enum: [...ACCEPTED_EVENT_SPELLINGS] })
 * ```
 */

const DOCUMENTED: unique symbol = Symbol('documented');

/** JSON Schema keywords (enum, pattern, format, minLength, multipleOf, oneOf …) the document adds. */
export type DocumentedRule = Readonly<Record<string, unknown>>;

export function documentedAs<T extends object>(schema: T, rule: DocumentedRule): T {
  return { ...schema, [DOCUMENTED]: rule };
}

/** The schema as the document states it: every rule merged in, wherever it sits; untouched parts kept as they are. */
export function withDocumentedRules(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    const items = schema.map(withDocumentedRules);
    return items.some((item, i) => item !== schema[i]) ? items : schema;
  }
  if (typeof schema !== 'object' || schema === null) return schema;
  const source = schema as Record<string | symbol, unknown>;
  let out: Record<string | symbol, unknown> | undefined;
  for (const [key, value] of Object.entries(source)) {
    const next = withDocumentedRules(value);
    if (next !== value) {
      out ??= { ...source };
      out[key] = next;
    }
  }
  const rule = source[DOCUMENTED] as DocumentedRule | undefined;
  if (rule === undefined) return out ?? schema;
  const merged: Record<string | symbol, unknown> = { ...(out ?? source), ...rule };
  delete merged[DOCUMENTED];
  return merged;
}

/** OpenAPI `links` of a route's answers (Fastify swagger's route option), by status. */
export type RouteLinks = Record<string, Record<string, { operationId: string; parameters: Record<string, string> }>>;

/**
 * The operations a created resource feeds, for a reader or a stateful tester: each takes `parameter`
 * from the answer's `field` (`$response.body#/id`), on every status given (a create that finds the
 * existing resource answers 200 with the same body).
 */
export function feeds(
  statuses: readonly number[],
  from: { parameter: string; field: string },
  operationIds: readonly string[],
): RouteLinks {
  const links = Object.fromEntries(
    operationIds.map((operationId) => [
      operationId,
      { operationId, parameters: { [from.parameter]: `$response.body#/${from.field}` } },
    ]),
  );
  return Object.fromEntries(statuses.map((status) => [String(status), links]));
}
