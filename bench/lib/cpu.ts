/**
 * Where the CPU went during a measured phase, from /proc (Linux): the machine's busy time and the CPU
 * time of chosen processes and of every PostgreSQL backend, so a scenario can say which party used
 * the cores. Readings are in seconds of CPU; off Linux every reading is zero.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds of one process (its finished children excluded). */
export function processCpu(pid: number): number {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds of every process named `postgres` visible here (the server and its backends). */
export function postgresCpu(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (read(`/proc/${entry}/comm`)?.trim() === 'postgres') total += processCpu(Number(entry));
  }
  return total;
}

/** Busy and total CPU seconds of the whole machine, all cores. */
export function machineCpu(): { busy: number; total: number } {
  const line = read('/proc/stat')?.split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const total = values.reduce((sum, value) => sum + value, 0);
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

export interface CpuShare {
  seconds: number;
  /** Machine busy share over the phase, 0..1 (all cores). */
  machineBusy: number;
  /** CPU seconds per party over the phase. */
  parties: Record<string, number>;
}

/** Starts accounting; the returned function ends it. `parties` maps a name to its pids. */
export function cpuAccount(parties: Record<string, number[]>): () => CpuShare {
  const started = performance.now();
  const machine = machineCpu();
  const before = Object.fromEntries(
    Object.entries(parties).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + processCpu(pid), 0)]),
  );
  const pgBefore = postgresCpu();
  return () => {
    const after = machineCpu();
    const result: Record<string, number> = {};
    for (const [name, pids] of Object.entries(parties))
      result[name] = pids.reduce((sum, pid) => sum + processCpu(pid), 0) - (before[name] ?? 0);
    result.PostgreSQL = postgresCpu() - pgBefore;
    const total = after.total - machine.total;
    return {
      seconds: (performance.now() - started) / 1000,
      machineBusy: total > 0 ? (after.busy - machine.busy) / total : 0,
      parties: result,
    };
  };
}
