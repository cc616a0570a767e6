import { afterEach, describe, expect, it, vi } from 'vitest';
import { ids } from '../../src/ids.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ids', () => {
  it('are 25 characters: the prefix, then base62', () => {
    expect(ids.delivery()).toMatch(/^dlv_[0-9A-Za-z]{21}$/);
    expect(ids.event()).toMatch(/^evt_[0-9A-Za-z]{21}$/);
    expect(ids.attempt()).toMatch(/^att_[0-9A-Za-z]{21}$/);
    expect(ids.subscription()).toMatch(/^sub_[0-9A-Za-z]{21}$/);
    expect(ids.client()).toMatch(/^cli_[0-9A-Za-z]{21}$/);
  });

  it('of events, deliveries and attempts sort by the millisecond they were minted in', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const minted: string[] = [];
    for (const at of [
      Date.UTC(2026, 0, 1),
      Date.UTC(2026, 0, 1) + 1,
      Date.UTC(2026, 0, 1) + 61,
      Date.UTC(2091, 5, 3),
    ]) {
      vi.setSystemTime(at);
      minted.push(ids.delivery());
    }
    expect([...minted].sort()).toEqual(minted);
    // The time part: 8 characters after the prefix, the same within one millisecond.
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    expect(ids.event().slice(4, 12)).toBe(minted[0]?.slice(4, 12));
  });

  it('minted in one millisecond still differ (77 random bits each)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 24));
    const many = Array.from({ length: 20_000 }, () => ids.attempt());
    expect(new Set(many).size).toBe(many.length);
    expect(new Set(many.map((id) => id.slice(0, 12))).size).toBe(1);
  });

  it('use every base62 character about equally often in their random part', () => {
    const counts = new Map<string, number>();
    const samples = 4000;
    for (let i = 0; i < samples; i++)
      for (const char of ids.subscription().slice(4)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (samples * 21) / 62;
    // A biased mapping (byte % 62 over all 256 bytes) makes the first 8 characters about 25 % likelier.
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.15);
  });
});
