/**
 * Reads the environment through the schema: each variable parsed by its kind, checked against the
 * schema's keywords, and every problem collected, so one start-up names all bad variables at once.
 */
import { availableParallelism } from 'node:os';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import ipaddr from 'ipaddr.js';
import type { EnvMeta, ParseKind } from './fields.js';
import { oidcIssues } from './oidc-fields.js';
import { ConfigSchema } from './schema.js';
import type { Config, ConfigKey } from './types.js';

/** The schema of one property with its environment metadata. */
export function fieldOf(key: ConfigKey): TSchema & EnvMeta {
  return ConfigSchema.properties[key] as unknown as TSchema & EnvMeta;
}

export const CONFIG_KEYS = Object.keys(ConfigSchema.properties) as ConfigKey[];

export interface ConfigIssue {
  readonly variable: string;
  /** What is wrong with the value and what is accepted. */
  readonly message: string;
}

/** Every bad variable of one start, one per line as `VARIABLE: problem`. */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];
  /** `variable` and `message` are the first bad variable; `others` the rest of the same start. */
  constructor(
    readonly variable: string,
    message: string,
    others: readonly ConfigIssue[] = [],
  ) {
    const issues = [{ variable, message }, ...others];
    super(issues.map((issue) => `${issue.variable}: ${issue.message}`).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** A value's problem, thrown by a parser and caught per variable. */
class Invalid extends Error {}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];
const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

function integer(raw: string, meta: EnvMeta & { minimum?: number; maximum?: number }): number {
  if (!/^\d+$/.test(raw)) throw new Invalid(`expected a whole number, got "${raw}"`);
  const value = Number(raw);
  const { minimum = 0, maximum = Number.MAX_SAFE_INTEGER } = meta;
  if (value < minimum || value > maximum) throw new Invalid(`must be between ${minimum} and ${maximum}, got ${value}`);
  return value;
}

function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

const PARSERS: Record<ParseKind, (raw: string, meta: EnvMeta & Record<string, unknown>) => unknown> = {
  integer,
  text: (raw, meta) => {
    if (meta.minLength !== undefined && raw.length < meta.minLength)
      throw new Invalid(`must be at least ${meta.minLength} characters`);
    return raw;
  },
  boolean: (raw) => {
    const value = raw.toLowerCase();
    if (TRUE.includes(value)) return true;
    if (FALSE.includes(value)) return false;
    throw new Invalid(`expected true or false, got "${value}"`);
  },
  choice: (raw, meta) => {
    const allowed = choices(meta);
    const match = allowed.find((candidate) => candidate === (meta.exactCase === true ? raw : raw.toLowerCase()));
    if (match === undefined) throw new Invalid(`expected one of ${allowed.join(', ')}, got "${raw}"`);
    return match;
  },
  secondsList: (raw, meta) => {
    const parts = raw.split(',').map((part) => part.trim());
    if (parts.some((part) => !/^\d+(\.\d+)?$/.test(part)))
      throw new Invalid(`expected seconds separated by commas (e.g. "5,300,1800"), got "${raw}"`);
    if (parts.length > Number(meta.maxItems ?? 50)) throw new Invalid(`at most ${String(meta.maxItems ?? 50)} retries`);
    return parts.map(Number);
  },
  databaseUrl: (raw) => {
    if (raw.startsWith('sqlite:') || raw.startsWith('postgres://') || raw.startsWith('postgresql://')) return raw;
    // Never echo credentials: user:password@ becomes ***@.
    throw new Invalid(`expected sqlite:<path> or postgres://..., got "${raw.replace(/\/\/[^@]*@/, '//***@')}"`);
  },
  httpUrl: (raw) => {
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new Invalid(`expected an absolute http(s) URL, got "${raw}"`);
    return url.toString().replace(/\/$/, '');
  },
  proxyList: (raw) => {
    const entries = commaList(raw);
    for (const entry of entries) {
      if (PROXY_KEYWORDS.includes(entry)) continue;
      if (!(entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry)))
        throw new Invalid(
          `expected IP addresses, CIDR ranges or ${PROXY_KEYWORDS.join('/')}, separated by commas; got "${entry}"`,
        );
    }
    return entries;
  },
  originList: (raw) => {
    const entries = commaList(raw);
    for (const entry of entries) {
      if (entry === '*') continue;
      const origin = URL.canParse(entry) ? new URL(entry).origin : 'null';
      // An origin is scheme://host[:port] exactly, as browsers send it in the Origin header.
      if (origin === 'null' || origin !== entry.replace(/\/$/, ''))
        throw new Invalid(`expected origins like https://shop.example (or *), separated by commas; got "${entry}"`);
    }
    return entries.map((entry) => entry.replace(/\/$/, ''));
  },
  issuerUrl: (raw) => {
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    // Plain http only where nothing crosses a network: a local or test provider needs no certificate.
    const loopback = url !== undefined && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
    if (url === undefined || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)))
      throw new Invalid(`expected an https:// URL (http:// only on localhost or 127.x.x.x), got "${raw}"`);
    return raw.replace(/\/$/, '');
  },
  roleMap: (raw) =>
    commaList(raw).map((pair) => {
      const [value, role, ...rest] = pair.split('=').map((part) => part.trim());
      if (!value || rest.length > 0 || !['viewer', 'support', 'admin'].includes(role ?? ''))
        throw new Invalid(
          `expected value=role pairs (roles viewer, support, admin) separated by commas, got "${pair}"`,
        );
      return { value, role };
    }),
  emailList: (raw) =>
    commaList(raw).map((entry) => {
      if (!/^[^@\s]+@[^@\s]+$/.test(entry))
        throw new Invalid(`expected e-mail addresses separated by commas, got "${entry}"`);
      return entry.toLowerCase();
    }),
  workers: (raw, meta) => (raw.toLowerCase() === 'auto' ? Math.max(1, availableParallelism()) : integer(raw, meta)),
};

/** The words a `choice` property accepts. */
export function choices(meta: EnvMeta): readonly string[] {
  return meta.words ?? [];
}

function text(env: Env, key: string): string | undefined {
  const value = env[key]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The defaults the schema declares (lists copied, so a caller cannot change the schema's). */
export function configDefaults(): Config {
  const entries = CONFIG_KEYS.map((key) => {
    const value: unknown = fieldOf(key).default;
    return [key, Array.isArray(value) ? [...value] : value];
  });
  return Object.fromEntries(entries) as Config;
}

function freeze(config: Record<string, unknown>): Config {
  for (const value of Object.values(config)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(config) as unknown as Config;
}

export function loadConfig(env: Env = process.env): Config {
  const issues: ConfigIssue[] = [];
  const config: Record<string, unknown> = { ...configDefaults() };
  for (const key of CONFIG_KEYS) {
    const meta = fieldOf(key) as EnvMeta & Record<string, unknown>;
    const raw = text(env, meta.env);
    if (raw === undefined) continue;
    try {
      config[key] = PARSERS[meta.parse](raw, meta);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      issues.push({ variable: meta.env, message: error.message });
    }
  }
  // Rules across variables.
  if (text(env, 'RATE_LIMIT_BURST') === undefined)
    config.rateLimitBurst = Math.max(1, Number(config.rateLimitRate) * 2);
  const { maxUrlLength, maxHeaderBytes } = config;
  if (!issues.some((issue) => issue.variable.startsWith('MAX_')) && Number(maxUrlLength) >= Number(maxHeaderBytes))
    issues.push({
      variable: 'MAX_URL_LENGTH',
      message: `must be below MAX_HEADER_BYTES (${String(maxHeaderBytes)}), got ${String(maxUrlLength)}`,
    });
  // A variable that did not parse is reported once, for that.
  for (const [variable, message] of oidcIssues(config))
    if (!issues.some((issue) => issue.variable === variable)) issues.push({ variable, message });
  const [first, ...others] = issues;
  if (first !== undefined) throw new ConfigError(first.variable, first.message, others);
  // The parsers above produce the schema's shapes; a mismatch here is a bug in this file, not a bad variable.
  const mismatch = Value.Errors(ConfigSchema, config).First();
  if (mismatch !== undefined) throw new Error(`config schema mismatch at ${mismatch.path}: ${mismatch.message}`);
  return freeze(config);
}

/** A config for tests and tools: defaults plus overrides, without touching process.env. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return freeze({
    ...loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', SEED: 'none' }),
    ...overrides,
  });
}
