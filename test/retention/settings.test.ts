/** The retention settings from the environment: defaults, EVENT_RETENTION_DAYS derived from the two delivery settings, 0 = forever. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { pauseAfter, retentionSettings } from '../../src/retention/policy.js';
import { DEFAULT_RETENTION } from './support.js';

const settings = (env: Record<string, string>) =>
  retentionSettings(loadConfig({ DATABASE_URL: 'sqlite::memory:', ...env }));

describe('retention settings', () => {
  it('default to 30 / 90 days, events as long as the longer of the two, bodies 7 days, counters 90 days, audit 400 days', () => {
    expect(settings({})).toEqual(DEFAULT_RETENTION);
    expect(settings({ AUDIT_RETENTION_DAYS: '0' }).auditDays).toBe(0);
  });

  it('derive the events default from the delivery settings: the larger, or forever when either is forever', () => {
    expect(settings({ FAILED_DELIVERY_RETENTION_DAYS: '120' }).eventDays).toBe(120);
    expect(settings({ DELIVERY_RETENTION_DAYS: '100' }).eventDays).toBe(100);
    expect(settings({ DELIVERY_RETENTION_DAYS: '0' }).eventDays).toBe(0);
    expect(settings({ DELIVERY_RETENTION_DAYS: '0', EVENT_RETENTION_DAYS: '10' }).eventDays).toBe(10);
  });

  it('refuse what is not a whole number of days up to 100 years', () => {
    expect(() => settings({ EVENT_RETENTION_DAYS: 'soon' })).toThrow(ConfigError);
    expect(() => settings({ DELIVERY_RETENTION_DAYS: '36501' })).toThrow(
      'DELIVERY_RETENTION_DAYS: must be between 0 and 36500, got 36501',
    );
  });

  it('pause after a batch: PRUNE_PAUSE_MS, at least 100 times the batch on both engines; 0 = none at all', () => {
    // A short transaction: PRUNE_PAUSE_MS.
    expect(pauseAfter(100, 0.5)).toBe(100);
    expect(pauseAfter(100, 1)).toBe(100);
    // Longer: 100 times its duration.
    expect(pauseAfter(100, 7.2)).toBe(720);
    expect(pauseAfter(100, 40)).toBe(4000);
    // A maintenance window: no pause at all.
    expect(pauseAfter(0, 7.2)).toBe(0);
    expect(pauseAfter(0, 40)).toBe(0);
  });
});
