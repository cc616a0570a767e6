import { expect, it } from 'vitest';
import { LeaseTally } from '../../src/delivery/lease-tally.js';

it('counts leases per subscription and forgets a subscription whose last lease ended', () => {
  const tally = new LeaseTally();
  tally.add('a');
  tally.add('a');
  tally.add('b');
  expect([...tally.held]).toEqual([
    ['a', 2],
    ['b', 1],
  ]);
  tally.remove('a');
  tally.remove('b');
  expect([...tally.held]).toEqual([['a', 1]]);
  tally.remove('a');
  // An end reported twice (or for a lease never counted) does not go below zero.
  tally.remove('a');
  expect([...tally.held]).toEqual([]);
});
