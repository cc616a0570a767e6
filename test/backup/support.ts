/**
 * Helpers for the backup tests: the compiled CLI as operators run it, a steady write load through the
 * admin API of a running server, and the PostgreSQL client programs.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ean13 } from '../support/ean.js';
import { ADMIN_TOKEN } from '../support/harness.js';
import { ROOT } from '../support/process.js';

export const BIN = join(ROOT, 'bin/shelfmark.js');

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (never throws on a non-zero exit). */
export function runProgram(file: string, args: readonly string[], env?: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, [...args], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `shelfmark <args>` from bin/shelfmark.js, with exactly this environment (plus PATH unless given). */
export function shelfmark(args: readonly string[], env: Record<string, string>): Promise<Ran> {
  return runProgram(process.execPath, [BIN, ...args], {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'silent',
    SEED: 'none',
    ...env,
  });
}

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

/** A fresh, valid EAN-13 for each offer of a run (978 + a run-specific block + a counter). */
export function eans(): () => string {
  const block = String(Math.floor(Math.random() * 900) + 100);
  let counter = 0;
  return () => {
    return ean13(`978${block}${String(counter++).padStart(6, '0')}`);
  };
}

export interface Acked {
  id: number;
  ean: string;
  /** Wall-clock time the request was sent. */
  sent: number;
  /** Wall-clock time of the 201 answer. */
  at: number;
}

export interface WriteLoad {
  /** Every offer whose creation was acknowledged (201), in the order the answers came. */
  acked: Acked[];
  /** Requests that failed (not 201): a write load must not lose any. */
  errors: string[];
  stop(): Promise<void>;
}

/**
 * `writers` loops creating published offers through the admin API, each waiting for its answer
 * before the next: a steady load of transactions that each write an offer, its events and one
 * delivery per subscription.
 */
export function startWriteLoad(base: string, writers: number): WriteLoad {
  const nextEan = eans();
  const acked: Acked[] = [];
  const errors: string[] = [];
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      const ean = nextEan();
      const sent = Date.now();
      try {
        const response = await fetch(`${base}/api/admin/v1/offers`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ ean, price: 12.5, condition: 'good' }),
        });
        const body = (await response.json()) as { id: number };
        if (response.status === 201) acked.push({ id: body.id, ean, sent, at: Date.now() });
        else errors.push(`${response.status} ${JSON.stringify(body)}`);
      } catch (error) {
        errors.push(String(error));
      }
    }
  };
  const loops = Array.from({ length: writers }, loop);
  return {
    acked,
    errors,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** A program's path on PATH, as the CLI will find it; undefined when it is not installed. */
export const onPath = (program: string): string | undefined =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, program))
    .find((path) => existsSync(path));
