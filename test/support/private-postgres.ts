/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl in a temporary directory, on a free port),
 * so outage tests can stop and start it without ever touching the shared server at :5432. initdb
 * refuses to run as root, so the cluster belongs to the `postgres` OS user when we are root.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

const CANDIDATE_DIRS = [
  '/usr/lib/postgresql/17/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
  '/usr/local/bin',
  '/usr/bin',
];

/** The directory holding initdb, pg_ctl and postgres together, or undefined. */
export const postgresBinDir = CANDIDATE_DIRS.find((dir) =>
  ['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(dir, name))),
);

export const privatePostgresRequired = process.env.CI === 'true';

if (postgresBinDir === undefined && !privatePostgresRequired) {
  console.warn(
    '\n[shelfmark tests] initdb/pg_ctl not found: the private-PostgreSQL outage tests are SKIPPED. Set CI=true to require them.\n',
  );
}

export interface PrivatePostgres {
  url: string;
  port: number;
  start(): void;
  /** Fast shutdown: open connections are terminated, as in a real outage. */
  stop(): void;
  destroy(): void;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  if (postgresBinDir === undefined) throw new Error('initdb/pg_ctl are required (CI=true) but not installed');
  const bin = postgresBinDir;
  const root = mkdtempSync(join(tmpdir(), 'shelfmark-pg-'));
  const data = join(root, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
  }
  chmodSync(root, 0o700);
  const run = (command: string, args: string[]): void => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
      : [join(bin, command), args];
    execFileSync(file, argv, { stdio: 'pipe', cwd: root, timeout: 60_000 });
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=100`;
  const start = (): void =>
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', '-t', '30', 'start']);
  start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => {
      start();
      running = true;
    },
    stop: () => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
      running = false;
    },
    destroy: () => {
      if (running) {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
        } catch {
          // Already gone.
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
