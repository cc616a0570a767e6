/**
 * fast-check arbitraries read off JSON Schemas (the API document's request schemas): values a schema
 * accepts, and values that break exactly one of its rules (a value outside an enum, a string over
 * maxLength or off its pattern, a number out of range, a missing required property, a wrong type, an
 * unknown property). Every value is checked with Ajv against the schema it came from, so a generator
 * that misreads a schema yields fewer cases, never a wrong one.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** Where a value goes: a JSON body keeps its types, a path, query or header value is text. */
export type Place = 'json' | 'text';

/** A value that breaks its schema, and the rule it breaks (for the failure report). */
export interface Breach {
  value: unknown;
  rule: string;
}

export type Known = { only: fc.Arbitrary<unknown> } | { often: fc.Arbitrary<unknown> };

export interface SchemaArbitraryOptions {
  /** The document's `components`, for `#/components/...` references. */
  components: Record<string, unknown>;
  /**
   * Values the caller knows more about than the schema says, for this schema at this place (e.g.
   * ['adminCreateList', 'body', 'school']): `only` when the schema's own values are not all valid (an
   * EAN's check digit is in its description), `often` to mix in (ids that exist), or undefined.
   */
  known?: (schema: JsonSchema, at: readonly string[]) => Known | undefined;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const INVALID_DATE_TIMES = ['2026-13-01T00:00:00Z', 'yesterday', '2026-09-01 08:00'];
const TYPE_OF = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
/** One value of each JSON type, for wrong-type breaches. */
const SAMPLES: Record<string, unknown> = {
  string: 'x1',
  integer: 7,
  number: 7.5,
  boolean: true,
  object: {},
  array: [],
};

const codePoints = (text: string): number => [...text].length;
const asSchemas = (value: unknown): JsonSchema[] => (Array.isArray(value) ? (value as JsonSchema[]) : []);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

export class SchemaArbitraries {
  // Text is read as the server reads it: coerced to the schema's type first ("5" is an integer).
  private readonly ajv = {
    json: addFormats(new Ajv2020({ strict: false, validateFormats: true })),
    text: addFormats(new Ajv2020({ strict: false, validateFormats: true, coerceTypes: 'array' })),
  };
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly options: SchemaArbitraryOptions) {
    for (const ajv of Object.values(this.ajv)) ajv.addSchema({ $id: 'openapi', components: options.components });
  }

  /** Whether `value` satisfies `schema` (the document's references resolved) where it goes. */
  accepts(schema: JsonSchema, value: unknown, place: Place = 'json'): boolean {
    // Coercion needs a parent to write into, so the value goes in as a property.
    const wrapped = { type: 'object', properties: { value: schema } };
    const text = JSON.stringify(wrapped).replaceAll('"#/components/', '"openapi#/components/');
    let validate = this.validators.get(place + text);
    if (validate === undefined) {
      validate = this.ajv[place].compile(JSON.parse(text) as JsonSchema);
      this.validators.set(place + text, validate);
    }
    return validate({ value });
  }

  /** Values `schema` accepts. */
  valid(schema: JsonSchema, at: readonly string[] = []): fc.Arbitrary<unknown> {
    const resolved = this.resolve(schema);
    const known = this.options.known?.(resolved, at);
    if (known !== undefined && 'only' in known) return known.only;
    const generated = this.generate(resolved, at).filter((value) => this.accepts(resolved, value));
    if (known === undefined) return generated;
    // A known value drawn as undefined (none seen yet) gives way to a generated one.
    const either = fc.tuple(known.often, generated).map(([own, made]) => own ?? made);
    return fc.oneof({ arbitrary: either, weight: 3 }, { arbitrary: generated, weight: 1 });
  }

  /** Values that break one rule of `schema`, or undefined when nothing at `place` can break it. */
  breach(schema: JsonSchema, place: Place): fc.Arbitrary<Breach> | undefined {
    const resolved = this.resolve(schema);
    const candidates = this.breaches(resolved, place).filter(({ value }) => !this.accepts(resolved, value, place));
    return candidates.length === 0 ? undefined : fc.constantFrom(...candidates);
  }

  /** `value` (valid for an object or array schema) with one rule broken somewhere inside it. */
  breachInside(schema: JsonSchema, value: unknown): fc.Arbitrary<Breach> | undefined {
    const resolved = this.resolve(schema);
    const options: fc.Arbitrary<Breach>[] = [];
    const own = this.breach(resolved, 'json');
    if (own !== undefined) options.push(own);
    const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
    if (TYPE_OF(value) === 'object') {
      const record = value as Record<string, unknown>;
      for (const name of asStrings(resolved.required))
        options.push(fc.constant({ value: without(record, name), rule: `required property ${name} missing` }));
      if (resolved.additionalProperties === false)
        options.push(fc.constant({ value: { ...record, unknownProperty: 1 }, rule: 'an unknown property' }));
      for (const [name, propertySchema] of Object.entries(properties)) {
        const inner =
          name in record && typeof record[name] === 'object' && record[name] !== null
            ? this.breachInside(propertySchema, record[name])
            : this.breach(propertySchema, 'json');
        if (inner !== undefined)
          options.push(
            inner.map(({ value: bad, rule }) => ({ value: { ...record, [name]: bad }, rule: `${name}: ${rule}` })),
          );
      }
    }
    const items = resolved.items as JsonSchema | undefined;
    if (Array.isArray(value) && value.length > 0 && items !== undefined) {
      const inner = this.breachInside(items, value[0]);
      if (inner !== undefined)
        options.push(inner.map(({ value: bad, rule }) => ({ value: [bad, ...value.slice(1)], rule: `[0]: ${rule}` })));
    }
    if (options.length === 0) return undefined;
    return fc.oneof(...options).filter((breach) => !this.accepts(resolved, breach.value));
  }

  private resolve(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    let target: unknown = { components: this.options.components };
    for (const key of ref.replace(/^#\//, '').split('/')) target = (target as Record<string, unknown>)[key];
    const { $ref: _ref, ...rest } = schema;
    return { ...(target as JsonSchema), ...rest };
  }

  private generate(schema: JsonSchema, at: readonly string[]): fc.Arbitrary<unknown> {
    if ('const' in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    const branches = [...asSchemas(schema.anyOf), ...asSchemas(schema.oneOf)];
    if (branches.length > 0) {
      const { anyOf: _a, oneOf: _o, ...shared } = schema;
      return fc.oneof(...branches.map((branch) => this.valid({ ...shared, ...this.resolve(branch) }, at)));
    }
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type ?? 'object')];
    if (types.length > 1) return fc.oneof(...types.map((type) => this.valid({ ...schema, type }, at)));
    switch (types[0]) {
      case 'string':
        return stringOf(schema);
      case 'integer':
      case 'number':
        return numberOf(schema, types[0] === 'integer');
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return this.arrayOf(schema, at);
      default:
        return this.objectOf(schema, at);
    }
  }

  private arrayOf(schema: JsonSchema, at: readonly string[]): fc.Arbitrary<unknown[]> {
    const items = this.valid((schema.items ?? {}) as JsonSchema, [...at, '[]']);
    const minLength = num(schema.minItems) ?? 0;
    // A few items say what many do; long arrays only slow every request down.
    const maxLength = Math.min(num(schema.maxItems) ?? minLength + 3, minLength + 3);
    return schema.uniqueItems === true
      ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
      : fc.array(items, { minLength, maxLength });
  }

  private objectOf(schema: JsonSchema, at: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const record = fc.record(
      Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, this.valid(inner, [...at, name])])),
      { requiredKeys: asStrings(schema.required) },
    );
    const minProperties = num(schema.minProperties) ?? 0;
    // A known value drawn as undefined (none seen yet) leaves its property out.
    return record
      .map((value) => Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)))
      .filter((value) => Object.keys(value).length >= minProperties);
  }

  private breaches(schema: JsonSchema, place: Place): Breach[] {
    const found: Breach[] = [];
    const enumValues = enumOf(schema);
    if (enumValues !== undefined) found.push({ value: 'not-one-of-them', rule: 'a value outside the enum' });
    const types = typesOf(schema);
    const max = num(schema.maxLength);
    if (max !== undefined) found.push({ value: 'x'.repeat(max + 1), rule: `longer than maxLength ${max}` });
    const min = num(schema.minLength);
    if (min !== undefined && min > 0) found.push({ value: 'x'.repeat(min - 1), rule: `shorter than minLength ${min}` });
    if (typeof schema.pattern === 'string')
      for (const value of ['~', 'not valid', '0', 'zz-zz']) found.push({ value, rule: 'off the pattern' });
    if (schema.format === 'date-time')
      for (const value of INVALID_DATE_TIMES) found.push({ value, rule: 'not a date-time' });
    if (schema.format === 'uri') found.push({ value: 'not a uri', rule: 'not a uri' });
    const [minimum, maximum] = [num(schema.minimum), num(schema.maximum)];
    if (minimum !== undefined) found.push({ value: minimum - 1, rule: `below minimum ${minimum}` });
    if (num(schema.exclusiveMinimum) !== undefined)
      found.push({ value: schema.exclusiveMinimum, rule: 'not above exclusiveMinimum' });
    if (maximum !== undefined) found.push({ value: maximum + 1, rule: `above maximum ${maximum}` });
    const multipleOf = num(schema.multipleOf);
    if (multipleOf !== undefined) found.push({ value: (minimum ?? 1) + multipleOf / 3, rule: 'not a multipleOf' });
    if (types.includes('integer')) found.push({ value: 1.5, rule: 'not an integer' });
    const wrong = Object.keys(SAMPLES).filter(
      (type) => !types.includes(type) && !(type === 'integer' && types.includes('number')),
    );
    if (place === 'json') for (const type of wrong) found.push({ value: SAMPLES[type], rule: `a ${type}` });
    else if (types.some((type) => type === 'integer' || type === 'number'))
      found.push({ value: 'abc', rule: 'not a number' });
    // Text goes as text: a breach that only JSON can carry is not one in a query or a header.
    return place === 'json' ? found : found.filter(({ value }) => typeof value !== 'object').map(asText);
  }
}

/** The enum a schema's values come from: its own, or its anyOf branches' (each an enum or a const). */
export function enumOf(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum as unknown[];
  const branches = asSchemas(schema.anyOf);
  if (branches.length === 0) return undefined;
  const values = branches.map((branch) =>
    'const' in branch ? [branch.const] : (branch.enum as unknown[] | undefined),
  );
  return values.every((value) => value !== undefined) ? values.flat() : undefined;
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  const branches = asSchemas(schema.anyOf);
  return branches.length > 0 ? branches.flatMap(typesOf) : [];
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = num(schema.maxLength) ?? 1000;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  let base: fc.Arbitrary<string>;
  if (schema.format === 'date-time')
    base = fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((date) => date.toISOString());
  else if (schema.format === 'uri') base = fc.webUrl({ withQueryParameters: true });
  else if (pattern !== undefined) base = fc.stringMatching(pattern);
  else {
    // Short strings, printable ASCII and any Unicode: length bounds are counted in code points.
    const constraints = { minLength, maxLength: Math.min(maxLength, minLength + 24) };
    base = fc.oneof(fc.string(constraints), fc.string({ ...constraints, unit: 'grapheme' }));
  }
  return base.filter((text) => codePoints(text) >= minLength && codePoints(text) <= maxLength);
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const step = num(schema.multipleOf) ?? (integer ? 1 : 0.01);
  const decimals = Math.max(0, Math.ceil(-Math.log10(step)));
  const low = num(schema.exclusiveMinimum) ?? num(schema.minimum) ?? -1e6;
  const high = num(schema.exclusiveMaximum) ?? num(schema.maximum) ?? 1e6;
  const min = Math.ceil(low / step) + (schema.exclusiveMinimum !== undefined && Number.isInteger(low / step) ? 1 : 0);
  const max =
    Math.floor(high / step) - (schema.exclusiveMaximum !== undefined && Number.isInteger(high / step) ? 1 : 0);
  return fc.integer({ min, max }).map((k) => Number((k * step).toFixed(decimals)));
}

const asStrings = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : []);

function without(record: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _gone, ...rest } = record;
  return rest;
}

const asText = ({ value, rule }: Breach): Breach => ({ value: String(value), rule });
