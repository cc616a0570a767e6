/**
 * The product speaks of the product: its code, tests, docs and SDK say what it does and why, never how
 * it was developed (tracker items, development machines, dates of the work, commits). The measurements
 * live in bench/results and in the decisions of docs/performance.md.
 */
import { describe, expect, it } from 'vitest';
import { findings } from '../support/product-words.js';

describe('the product speaks of the product', () => {
  it('no tracker items, development machines, work sessions, dates of the work or commits in the tree', () => {
    expect(findings()).toEqual([]);
  });
});
