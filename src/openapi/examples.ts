/**
 * An example for every operation: its request body, its required parameters and each JSON answer it
 * succeeds with, composed when the document is built from the examples its schemas carry (a field's
 * `examples`, an enum's first value, a bound), so an example is written once, beside its field, and
 * every operation that sends or answers that field shows it. A media type or parameter that already
 * has an example keeps it. test/ops/openapi-examples.test.ts validates every example against its schema,
 * which is what keeps a field's example and its rules together.
 */

type Schema = Record<string, unknown>;
type Components = Record<string, Schema>;

const REF = '#/components/schemas/';
/** Deep enough for every shape the API has; a schema nested deeper (a recursive one) stops here. */
const MAX_DEPTH = 12;

const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2026-09-01T08:30:00.000Z',
  date: '2026-09-01',
  uri: 'https://shelfmark.example/',
  email: 'operator@shop.example',
};

function resolve(schema: Schema, components: Components): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith(REF)) return schema;
  return components[ref.slice(REF.length)] ?? schema;
}

const stated = (schema: Schema): { value: unknown } | undefined => {
  if ('example' in schema) return { value: schema.example };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  if ('const' in schema) return { value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { value: schema.enum[0] };
  if ('default' in schema) return { value: schema.default };
  return undefined;
};

function numberExample(schema: Schema, integer: boolean): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const above = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  let value = minimum ?? (above === undefined ? 1 : above + 1);
  if (maximum !== undefined && value > maximum) value = maximum;
  return integer ? Math.ceil(value) : value;
}

function stringExample(schema: Schema): string | undefined {
  if (typeof schema.format === 'string' && FORMAT_EXAMPLES[schema.format] !== undefined)
    return FORMAT_EXAMPLES[schema.format];
  // A pattern needs a value written for it: the field carries its own example.
  if (schema.pattern !== undefined) return undefined;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  return 'text'.padEnd(minLength, 'x').slice(0, maxLength);
}

/** An example value for a schema, or undefined when none can be told from it. */
export function exampleOf(schema: unknown, components: Components, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return undefined;
  const own = schema as Schema;
  const given = stated(own);
  if (given !== undefined) return given.value;
  const resolved = resolve(own, components);
  if (resolved !== own) return exampleOf(resolved, components, depth + 1);
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const members = own[key];
    if (!Array.isArray(members)) continue;
    if (key === 'allOf') {
      const parts = members.map((member) => exampleOf(member, components, depth + 1));
      return parts.every((part) => typeof part === 'object' && part !== null) ? Object.assign({}, ...parts) : undefined;
    }
    // The first member that has an example and is not null.
    for (const member of members) {
      const value = exampleOf({ ...own, [key]: undefined, ...(member as Schema) }, components, depth + 1);
      if (value !== undefined && value !== null) return value;
    }
  }
  const types = Array.isArray(own.type) ? (own.type as string[]) : [own.type];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  switch (type) {
    case 'object':
      return objectExample(own, components, depth);
    case 'array': {
      const item = exampleOf(own.items, components, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'string':
      return stringExample(own);
    case 'integer':
      return numberExample(own, true);
    case 'number':
      return numberExample(own, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return undefined;
  }
}

function objectExample(schema: Schema, components: Components, depth: number): unknown {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    // Optional fields are often conditional (present only while disabled): only a shared shape appears.
    if (!required.has(name) && property.$ref === undefined) continue;
    const value = exampleOf(property, components, depth + 1);
    if (value === undefined) {
      if (required.has(name)) return undefined;
      continue;
    }
    out[name] = value;
  }
  // A body that needs some fields (a PATCH: at least one) gets the first optional ones that have a value.
  const least = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (const [name, property] of Object.entries(properties)) {
    if (Object.keys(out).length >= least) break;
    if (name in out) continue;
    const value = exampleOf(property, components, depth + 1);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

interface Media {
  schema?: unknown;
  example?: unknown;
  examples?: unknown;
}
interface Parameter {
  in: string;
  required?: boolean;
  schema?: unknown;
  example?: unknown;
  examples?: unknown;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
}

const JSON_MEDIA = /^application\/(?:[a-z.+-]*\+)?json$|^application\/x-www-form-urlencoded$/;

function exemplify(media: Media, components: Components): void {
  if (media.example !== undefined || media.examples !== undefined) return;
  const value = exampleOf(media.schema, components);
  if (value !== undefined) media.example = value;
}

/** Adds the examples to every operation of a built document, in place (the document is built fresh). */
export function addExamples(paths: Record<string, Record<string, object>>, components: Components): void {
  for (const item of Object.values(paths))
    for (const operation of Object.values(item) as Operation[]) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.required !== true || parameter.example !== undefined || parameter.examples !== undefined)
          continue;
        const value = exampleOf(parameter.schema, components);
        if (value !== undefined) parameter.example = value;
      }
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        if (JSON_MEDIA.test(type)) exemplify(media, components);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        for (const [type, media] of Object.entries(response.content ?? {}))
          if (JSON_MEDIA.test(type)) exemplify(media, components);
      }
    }
}
