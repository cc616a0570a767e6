/**
 * The one place that reads the environment (through config/load.ts). The configuration is one TypeBox
 * schema (config/schema.ts): the type, the defaults, the validation and the docs table all come from it.
 */
export { ConfigError, type ConfigIssue, configDefaults, loadConfig, testConfig } from './config/load.js';
export { ConfigSchema } from './config/schema.js';
export type { Config, LogRequests, ProcessRole, SeedMode } from './config/types.js';
