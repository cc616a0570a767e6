/** Load runs in their own process, the webhook receiver in its own, and the statistics of repeated rounds. */
import { type Child, freePort, rssMiB, spawnChild } from './proc.js';

export interface LoadResult {
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  bytesPerResponse: number;
  statusCodes: Record<string, number>;
}

export interface LoadArgs {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds: number;
  /** A JSON array of paths requested in turn (the catalogue's query mix). */
  pathsFile?: string;
}

/** One autocannon run in a child process (50 connections unless told). */
export async function load(args: LoadArgs): Promise<LoadResult> {
  const child = spawnChild('load', [JSON.stringify({ connections: 50, ...args })]);
  try {
    return await child.result<LoadResult>((args.seconds + 30) * 1000);
  } finally {
    await child.stop('SIGKILL', 5000);
  }
}

/** Samples a process's RSS every 100 ms until stopped: peak and last value in MiB. */
export function sampleRss(pids: () => number[]): { stop(): { peakMiB: number; lastMiB: number } } {
  let peak = 0;
  let last = 0;
  const tick = (): void => {
    const total = pids().reduce((sum, pid) => sum + (rssMiB(pid) ?? 0), 0);
    if (total > 0) {
      last = total;
      peak = Math.max(peak, total);
    }
  };
  tick();
  const timer = setInterval(tick, 100);
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      return { peakMiB: Math.round(peak), lastMiB: Math.round(last) };
    },
  };
}

export interface ReceiverStats {
  count: number;
  distinct: number;
  first: number | null;
  nth: number | null;
  /** Arrival time of the Kth distinct delivery when asked for (`waitFor(n, ms, k)`). */
  kth?: number | null;
  last: number | null;
}

export interface Receiver {
  child: Child;
  url: string;
  hookUrl: string;
  reset(): Promise<void>;
  /** Waits until `n` distinct deliveries arrived (or `waitMs` passed) and returns the counts and times. */
  waitFor(n: number, waitMs: number, from?: number): Promise<ReceiverStats>;
  arrivals(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** The receiver process; `answerDelayMs` > 0 makes it answer each delivery that much later. */
export async function startReceiver(answerDelayMs = 0): Promise<Receiver> {
  const port = await freePort();
  const child = spawnChild('receiver', [String(port), String(answerDelayMs)]);
  await child.line('READY', 20_000);
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    hookUrl: `${url}/hook`,
    reset: async () => {
      await fetch(`${url}/_reset`, { method: 'POST', signal: AbortSignal.timeout(5000) });
    },
    waitFor: async (n, waitMs, from = 0) => {
      const response = await fetch(`${url}/_stats?n=${n}&wait=${waitMs}&from=${from}`, {
        signal: AbortSignal.timeout(waitMs + 10_000),
      });
      return (await response.json()) as ReceiverStats;
    },
    arrivals: async () =>
      (await (await fetch(`${url}/_arrivals`, { signal: AbortSignal.timeout(10_000) })).json()) as Record<
        string,
        number
      >,
    stop: async () => {
      await child.stop('SIGTERM', 5000);
    },
  };
}

/**
 * Deliveries per second between the first and the Nth distinct arrival, or, after `warmup`
 * unmeasured ones, between the warm-up's last and the Nth (the stats must carry `kth` for K = warmup).
 */
export function arrivalRate(stats: ReceiverStats, n: number, warmup = 0): number {
  const from = warmup > 0 ? stats.kth : stats.first;
  if (from === null || from === undefined || stats.nth === null || stats.distinct < n) return Number.NaN;
  return Math.round((n - Math.max(1, warmup)) / ((stats.nth - from) / 1000));
}

/**
 * Which arrivals of one drain are measured: `warmup` unmeasured ones first, then `windows` consecutive
 * windows of `size` deliveries each (the first measures a process still warming up, a later one the
 * rate it keeps).
 */
export interface DrainPlan {
  warmup: number;
  size: number;
  windows: number;
  /** A last window of this many after the `windows` of `size` (the delivery scenario's long warm one). */
  tail?: number;
}

/** Deliveries a drain of this plan sends in all. */
export const planTotal = (plan: DrainPlan): number => plan.warmup + plan.size * plan.windows + (plan.tail ?? 0);

/** The rate of each window of the plan, from the receiver's arrival times once the drain is complete. */
export async function windowRates(receiver: Receiver, plan: DrainPlan): Promise<number[]> {
  const rates: number[] = [];
  for (let window = 0; window < plan.windows; window++) {
    const from = plan.warmup + window * plan.size;
    const to = from + plan.size;
    rates.push(arrivalRate(await receiver.waitFor(to, 0, from), to, from));
  }
  if (plan.tail !== undefined && plan.tail > 0) {
    const from = plan.warmup + plan.windows * plan.size;
    const to = from + plan.tail;
    rates.push(arrivalRate(await receiver.waitFor(to, 0, from), to, from));
  }
  return rates;
}

export const epochNow = (): number => performance.timeOrigin + performance.now();

export interface Spread {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function spread(values: readonly number[]): Spread {
  const finite = values.filter((value) => Number.isFinite(value));
  const sorted = [...finite].sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, values: [...values] };
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number, values: [...values] };
}

/** Per-round ratios a[i]/b[i] (interleaved rounds are paired), as a spread. */
export function ratios(a: readonly number[], b: readonly number[]): Spread {
  return spread(a.map((value, index) => value / (b[index] ?? Number.NaN)));
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
