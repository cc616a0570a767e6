import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsTable, withEventsTable } from '../../docs-tools/events-table.js';
import { EVENT_NAMES } from '../../src/events/catalogue.js';

const docs = join(import.meta.dirname, '../../docs/webhooks.md');

describe('events: one catalogue', () => {
  it('the table in docs/webhooks.md is the one the event catalogue renders (npm run docs:events)', () => {
    const text = readFileSync(docs, 'utf8');
    expect(withEventsTable(text), 'run npm run docs:events').toBe(text);
  });

  it('names every event once, in both spellings, with its payload type words and resource', () => {
    const rows = eventsTable().split('\n').slice(2);
    expect(rows).toHaveLength(EVENT_NAMES.length);
    const cells = (row: string | undefined) => row?.split('|').map((cell) => cell.trim());
    expect(cells(rows[0])).toEqual([
      '',
      '`school.created` / `school-created`',
      'A school was created.',
      '`created`',
      '`school`',
      '',
    ]);
    expect(cells(rows[4])?.[3]).toBe('one of `created`, `validated`, `published`, `archived`');
  });
});
