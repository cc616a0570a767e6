/** The shapes every scenario reports: table rows, targets, and raw figures. */
import type { Spread } from './measure.js';

export interface Settings {
  quick: boolean;
  rounds: number;
  /** Length of each autocannon run. */
  seconds: number;
  /** An unmeasured load run of this many seconds per party before the rounds (JIT warm-up); 0 for none. */
  warmupSeconds: number;
  /** Deliveries queued per delivery run. */
  deliveries: number;
  /**
   * Rounds of the delivery scenario: its windows last under a second each, so one round's rate moves
   * with whatever else the machine did in that second, and it takes more rounds for a steady median.
   */
  deliveryRounds: number;
  /** The delivery scenario's third window, timed after the first two: the rate a warm process keeps. */
  deliveryWarm: number;
  /** Subscriptions in the fan-out run. */
  fanout: number;
  latencySeconds: number;
  latencyRate: number;
  postgres: boolean;
}

export interface Row {
  scenario: string;
  party: string;
  metric: string;
  unit: string;
  spread: Spread;
}

export interface Target {
  scenario: string;
  label: string;
  /** The measured value (a median). */
  value: number;
  target: number;
  unit: string;
  /** 'atLeast': value ≥ target is met; 'atMost': value ≤ target is met. */
  kind: 'atLeast' | 'atMost';
  met: boolean;
  /** How far from the target, in words ("missed by 12 points", "met with 3 ms to spare"). */
  verdict: string;
  /** The lowest and highest round when the value is a median of rounds. */
  range?: [number, number];
}

export interface ScenarioResult {
  rows: Row[];
  targets: Target[];
  notes: string[];
  raw: Record<string, unknown>;
}

export function target(
  scenario: string,
  label: string,
  value: number,
  goal: number,
  unit: string,
  kind: Target['kind'],
): Target {
  const met = Number.isFinite(value) && (kind === 'atLeast' ? value >= goal : value <= goal);
  const gap = Math.abs(value - goal);
  const amount =
    unit === '%' ? `${gap.toFixed(1)} points` : unit === '×' ? `${gap.toFixed(2)}×` : `${round(gap)} ${unit}`;
  const verdict = !Number.isFinite(value) ? 'not measured' : met ? `met (${amount} to spare)` : `missed by ${amount}`;
  return { scenario, label, value: round(value), target: goal, unit, kind, met, verdict };
}

export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
}
