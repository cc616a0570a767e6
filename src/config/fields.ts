/** Constructors for the configuration schema's properties: JSON Schema keywords plus environment metadata. */
import { type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/** How a variable's text becomes a value; the custom kinds are parsers in load.ts. */
export type ParseKind =
  | 'integer'
  | 'boolean'
  | 'choice'
  | 'text'
  | 'secondsList'
  | 'databaseUrl'
  | 'httpUrl'
  | 'proxyList'
  | 'originList'
  | 'workers'
  | 'issuerUrl'
  | 'roleMap'
  | 'emailList';

/** What every property of the schema carries besides its JSON Schema keywords. */
export interface EnvMeta {
  readonly env: string;
  readonly parse: ParseKind;
  readonly description: string;
  /** The default as the docs show it, when it is not a literal value (generated, derived). */
  readonly shown?: string;
  /** Accepted values in words, for the kinds whose keywords do not say it. */
  readonly accepts?: string;
  /** The words a `choice` accepts (the same list its literal union is built from). */
  readonly words?: readonly string[];
  /** `choice` values are matched case-insensitively unless this is set. */
  readonly exactCase?: boolean;
  /** Shortest accepted text (`text` kind). */
  readonly minLength?: number;
}

export type Doc = Omit<EnvMeta, 'env' | 'parse' | 'description'> & { readonly parse?: ParseKind };

export const int = (
  env: string,
  fallback: number,
  minimum: number,
  maximum: number,
  description: string,
  doc: Doc = {},
) => Type.Integer({ env, parse: 'integer', default: fallback, minimum, maximum, description, ...doc });

export const flag = (env: string, description: string) =>
  Type.Boolean({ env, parse: 'boolean', default: false, description });

/** One of a fixed set of words; the type is the union of the literals. */
export const choice = <const T extends readonly string[]>(
  env: string,
  values: T,
  fallback: T[number],
  description: string,
  doc: Doc = {},
): TUnsafe<T[number]> & EnvMeta =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { env, parse: 'choice', words: values, default: fallback, description, ...doc },
  ) as unknown as TUnsafe<T[number]> & EnvMeta;

export const optionalText = (env: string, parse: ParseKind, description: string, doc: Doc) =>
  Type.Union([Type.String({ minLength: doc.minLength ?? 1 }), Type.Undefined()], { env, parse, description, ...doc });

export const list = <T extends TSchema>(
  item: T,
  env: string,
  parse: ParseKind,
  fallback: unknown[],
  description: string,
  doc: Doc,
) => Type.Array(item, { env, parse, default: fallback, description, ...doc });
