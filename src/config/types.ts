/** The configuration's types, derived from its one schema (schema.ts). */
import type { Static } from '@sinclair/typebox';
import type { ConfigSchema } from './schema.js';

type Parsed = Static<typeof ConfigSchema>;

/** The parsed configuration: every value typed and frozen (lists included). */
export type Config = { readonly [K in keyof Parsed]: Parsed[K] extends (infer U)[] ? readonly U[] : Parsed[K] };
/** What a process runs: the API, the delivery worker, or both (`--role`, ROLE). */
export type ProcessRole = Config['role'];
export type SeedMode = Config['seed'];
export type LogRequests = Config['logRequests'];
export type ConfigKey = keyof Config;
