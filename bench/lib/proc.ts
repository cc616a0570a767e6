/**
 * Child processes of the bench: every party (the server under test, the load generator, the webhook
 * receiver, baselines and peers) runs in a process of its own, so none steals another's event loop.
 * Every child is registered here and killed when the orchestrator exits, fails or is interrupted,
 * so a crash never leaves a server behind. Every wait is bounded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const live = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  live.clear();
}

const cleanups = new Set<() => Promise<void>>();

/** Registers clean-up work (dropping a PostgreSQL schema) to run if the orchestrator is interrupted; returns its removal. */
export function onInterrupt(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** The orchestrator calls this once: children die with it, on exit or when it is interrupted. */
export function killChildrenOnExit(): void {
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killAll();
      const bounded = Promise.race([Promise.allSettled([...cleanups].map((cleanup) => cleanup())), sleep(5000)]);
      void bounded.then(() => process.exit(130));
    });
  }
}

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** Every stdout line so far (children print `READY {json}` and `RESULT {json}` lines). */
  readonly lines: string[];
  /** The first line starting with `prefix`, waited for at most `timeoutMs`. */
  line(prefix: string, timeoutMs: number): Promise<string>;
  /** The JSON after `RESULT `, waited for at most `timeoutMs`. */
  result<T>(timeoutMs: number): Promise<T>;
  /** Resolves with the exit code (or signal) once the process ended, at most `timeoutMs` (then SIGKILL). */
  exited(timeoutMs: number): Promise<number | string>;
  /** SIGTERM (or the given signal), then SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string>;
  stderr(): string;
  /** Undefined while running; the exit code or signal once it ended. */
  ended(): number | string | undefined;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  nodeArgs?: string[];
  cwd?: string;
}

/** Starts `node [nodeArgs] file args`; `file` is relative to the repository root. */
export function spawnNode(name: string, file: string, args: string[] = [], options: SpawnOptions = {}): Child {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), join(ROOT, file), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  let stderr = '';
  let exitValue: number | string | undefined;
  const exitWaiters: ((value: number | string) => void)[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (line.startsWith(waiter.prefix)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
  }
  child.on('exit', (code, signal) => {
    live.delete(child);
    exitValue = code ?? signal ?? 'unknown';
    for (const waiter of exitWaiters.splice(0)) waiter(exitValue);
  });
  const exited = (timeoutMs: number): Promise<number | string> =>
    new Promise((resolve) => {
      if (exitValue !== undefined) return resolve(exitValue);
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
      }, timeoutMs);
      exitWaiters.push((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  const line = (prefix: string, timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const found = lines.find((candidate) => candidate.startsWith(prefix));
      if (found !== undefined) return resolve(found);
      const timer = setTimeout(
        () => reject(new Error(`${name}: no "${prefix}" line within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)),
        timeoutMs,
      );
      const onExit = (): void => {
        clearTimeout(timer);
        reject(
          new Error(
            `${name} exited (${String(exitValue)}) before printing "${prefix}"; stderr: ${stderr.slice(-2000)}`,
          ),
        );
      };
      if (exitValue !== undefined) return onExit();
      exitWaiters.push(() => {
        if (!lines.some((candidate) => candidate.startsWith(prefix))) onExit();
      });
      waiters.push({
        prefix,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
      });
    });
  if (child.pid === undefined) throw new Error(`${name}: could not start`);
  return {
    name,
    process: child,
    pid: child.pid,
    lines,
    line,
    result: async <T>(timeoutMs: number) => JSON.parse((await line('RESULT ', timeoutMs)).slice('RESULT '.length)) as T,
    exited,
    stop: async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000) => {
      if (exitValue !== undefined) return exitValue;
      child.kill(signal);
      return exited(graceMs);
    },
    stderr: () => stderr,
    ended: () => exitValue,
  };
}

/** A bench child written in TypeScript (bench/children/<name>.ts), run by node with the tsx loader. */
export function spawnChild(name: string, args: string[] = [], options: SpawnOptions = {}): Child {
  return spawnNode(name, join('bench', 'children', `${name}.ts`), args, {
    ...options,
    nodeArgs: ['--import', 'tsx', ...(options.nodeArgs ?? [])],
  });
}

/** Throws if a child that should still run has ended (crashed, or killed from outside). */
export function assertRunning(child: Child): void {
  const ended = child.ended();
  if (ended !== undefined)
    throw new Error(
      `${child.name} (pid ${child.pid}) ended during the run (${String(ended)}); stderr: ${child.stderr().slice(-1500)}`,
    );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in MiB (VmRSS of /proc/<pid>/status); undefined once it is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** The direct child pids of a process (node:cluster workers of a primary). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
