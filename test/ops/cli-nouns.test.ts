/** The CLI's counts read as sentences: the noun in the number its count asks for. */
import { describe, expect, it } from 'vitest';
import { counted } from '../../src/cli/nouns.js';

describe('counted nouns in the CLI', () => {
  it('one is singular; none and many are plural; large counts are grouped', () => {
    expect(counted(1, 'row')).toBe('1 row');
    expect(counted(0, 'row')).toBe('0 rows');
    expect(counted(7, 'bad row')).toBe('7 bad rows');
    expect(counted(1200, 'record')).toBe('1,200 records');
    expect(counted(1, 'entry', 'entries')).toBe('1 entry');
    expect(counted(2, 'entry', 'entries')).toBe('2 entries');
  });
});
