/**
 * The backup file: written under a temporary name beside it and published only once complete and
 * verified, so a crash or a failed check never leaves a file that looks like a backup. The file is
 * created readable by its owner only: it holds the signing keys, the webhook secrets and the hashes
 * of every credential.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** A backup that could not be made: the message says why, for the operator; the CLI exits with 1. */
export class BackupError extends Error {}

/** What a finished copy was checked to hold. */
export interface Snapshot {
  /** The migrations the copy records, in order. */
  readonly migrations: readonly string[];
  /** The check it passed, in words. */
  readonly check: string;
}

export interface Target {
  /** The file named by the operator, absolute. */
  readonly file: string;
  /** Where it is written first: a hidden name in the same directory, so publishing it is a rename. */
  readonly temp: string;
  readonly force: boolean;
}

const codeOf = (error: unknown): string =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'not a directory',
  ENOSPC: 'no space left',
  EDQUOT: 'disk quota exceeded',
};

const reasonOf = (error: unknown): string => {
  const code = codeOf(error);
  return code === '' ? String(error) : `${REASONS[code] ?? 'refused'}, ${code}`;
};

/** Checks the name and creates the empty temporary file (mode 0600), or says why it cannot. */
export function prepareTarget(file: string, force: boolean): Target {
  const absolute = resolve(file);
  const directory = dirname(absolute);
  if (existsSync(absolute)) {
    if (statSync(absolute).isDirectory()) throw new BackupError(`${absolute} is a directory: name the backup file`);
    if (!force) throw new BackupError(`${absolute} exists: pass --force to replace it`);
  }
  if (!existsSync(directory))
    throw new BackupError(`cannot write ${absolute}: the directory ${directory} does not exist`);
  const temp = join(directory, `.${basename(absolute)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    closeSync(openSync(temp, 'wx', 0o600));
  } catch (error) {
    throw new BackupError(`cannot write ${absolute}: no file can be created in ${directory} (${reasonOf(error)})`);
  }
  return { file: absolute, temp, force };
}

/** Flushes the finished temporary file to disk and publishes it under its name; returns its size in bytes. */
export function publishTarget(target: Target): number {
  const fd = openSync(target.temp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const bytes = statSync(target.temp).size;
  if (target.force) renameSync(target.temp, target.file);
  else publishWithoutReplacing(target);
  syncDirectory(dirname(target.file));
  return bytes;
}

/**
 * Without --force a file that appeared meanwhile is still not replaced: a hard link fails when the
 * name exists (where links are not supported, the check made at the start is all there is).
 */
function publishWithoutReplacing(target: Target): void {
  try {
    linkSync(target.temp, target.file);
    unlinkSync(target.temp);
  } catch (error) {
    if (codeOf(error) === 'EEXIST') throw new BackupError(`${target.file} exists: pass --force to replace it`);
    if (existsSync(target.file)) throw error;
    renameSync(target.temp, target.file);
  }
}

/** The rename itself survives a power loss once the directory is synced (not possible on every platform). */
function syncDirectory(directory: string): void {
  try {
    const fd = openSync(directory, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows cannot open a directory; the file itself is synced.
  }
}

/** Removes the temporary file and any SQLite companion file of it. */
export function discardTarget(target: Target): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${target.temp}${suffix}`, { force: true });
}
