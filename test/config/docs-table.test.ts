import { describe, expect, it } from 'vitest';
import { configTable, withConfigTable } from '../../docs-tools/config-table.js';
import { CONFIG_KEYS, fieldOf } from '../../src/config/load.js';
import { ConfigError, configDefaults, loadConfig } from '../../src/config.js';
import { itHoldsTheRenderedTable } from '../support/docs-table.js';

describe('configuration: one schema', () => {
  itHoldsTheRenderedTable('docs/operating/configuration.md', 'the schema', withConfigTable, 'docs:config');

  it('names every variable of the schema in the table, once', () => {
    const table = configTable();
    for (const key of CONFIG_KEYS) {
      const variable = fieldOf(key).env;
      expect(table.split('\n').filter((row) => row.startsWith(`| \`${variable}\` `))).toHaveLength(1);
    }
  });

  it('the defaults are the schema defaults (RATE_LIMIT_BURST derived from the rate)', () => {
    expect(loadConfig({})).toEqual({ ...configDefaults(), rateLimitBurst: 200 });
  });

  it('reports every bad variable at once, each with its problem and what is accepted', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'abc', SEED: 'lots', CORS_TOKEN_ENDPOINT: 'maybe', DATABASE_URL: 'mysql://u:pw@h/db' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.issues.map((issue) => issue.variable).sort()).toEqual([
      'CORS_TOKEN_ENDPOINT',
      'DATABASE_URL',
      'PORT',
      'SEED',
    ]);
    expect(error.message.split('\n').sort()).toEqual([
      'CORS_TOKEN_ENDPOINT: expected true or false, got "maybe"',
      'DATABASE_URL: expected sqlite:<path> or postgres://..., got "mysql://***@h/db"',
      'PORT: expected a whole number, got "abc"',
      'SEED: expected one of demo, none, got "lots"',
    ]);
  });
});
