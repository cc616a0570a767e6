import { describe, expect, it } from 'vitest';
import { eventsTable, withEventsTable } from '../../docs-tools/events-table.js';
import { EVENT_NAMES } from '../../src/events/catalogue.js';
import { itHoldsTheRenderedTable } from '../support/docs-table.js';

describe('events: one catalogue', () => {
  itHoldsTheRenderedTable('docs/webhooks.md', 'the event catalogue', withEventsTable, 'docs:events');

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
