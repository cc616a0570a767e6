/**
 * The compiled server (`dist/main/server.js`) as a separate process, exactly as operators run it, for
 * the crash, outage and scale-out tests.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ADMIN_TOKEN } from './harness.js';

export const ROOT = resolve(import.meta.dirname, '../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds dist/ unless its last build is newer than every source file (`npm test` has just built it). */
export function ensureBuilt(): void {
  // Written at the end of `npm run build` (scripts/build-web.mjs): an incremental tsc rewrites only the
  // files that changed, so dist/main/server.js's own time may be older than a source file touched since.
  const built = join(ROOT, 'dist/.built');
  if (existsSync(built) && statSync(built).mtimeMs >= newestMtime(join(ROOT, 'src'))) return;
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' });
}

export interface ServerProcess {
  child: ChildProcess;
  /** Resolves with the base URL (or '' for a worker-only process) once it is up. */
  ready: Promise<string>;
  output(): string;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM and resolve with the exit code. */
  stop(): Promise<number | null>;
}

export function startServer(databaseUrl: string, env: Record<string, string> = {}, args: string[] = []): ServerProcess {
  const child = spawn(process.execPath, ['dist/main/server.js', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_CONCURRENCY: '8',
      SEED: 'none',
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<string>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)|Shelfmark worker/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolveReady(match[1] ?? '');
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  ready.catch(() => undefined);
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    ready,
    output: () => output,
    kill: async () => {
      if (exited()) return;
      const gone = once(child, 'exit');
      child.kill('SIGKILL');
      await gone;
    },
    stop: async () => {
      if (exited()) return child.exitCode;
      const gone = once(child, 'exit') as Promise<[number | null]>;
      child.kill('SIGTERM');
      return (await gone)[0];
    },
  };
}
