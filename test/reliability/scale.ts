/**
 * How big the reliability suite runs. `npm run test:reliability` sets RELIABILITY_SCALE=full (the
 * figures in docs/testing.md); `npm test` runs the bounded form so CI stays within its time.
 */
export const FULL = process.env.RELIABILITY_SCALE === 'full';

export const SCALE = {
  /** Malformed requests sent by the fuzzer. */
  fuzzRequests: FULL ? 10_000 : 2_000,
  /** Deliveries in the crash fan-out (subscriptions × events). */
  crashSubscriptions: FULL ? 50 : 10,
  crashEvents: 100,
  crashKills: 5,
  /** Events delivered by the scale-out test. */
  scaleOutEvents: FULL ? 5_000 : 1_000,
  /** The database outage length (the issue asks for 10 s; the bounded run keeps it). */
  outageMs: 10_000,
} as const;

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
