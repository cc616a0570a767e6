/**
 * Chromium for the browser end-to-end tests: Debian's package at /usr/bin/chromium, driven by
 * playwright-core (which never downloads a browser). When it is missing the setup installs the
 * `chromium` package if it can (root with apt-get); failing that, the browser tests are skipped with
 * a visible message, except with CI=true, where they are required and fail instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const required = process.env.CI === 'true';

/** The launch flags the project settled on: headless, no sandbox (containers), nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function tryInstall(): void {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  if (spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status !== 0) return;
  console.warn('[shelfmark tests] /usr/bin/chromium is missing: installing the chromium package with apt-get ...');
  spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium'], {
    stdio: 'inherit',
    timeout: 600_000,
  });
}

function locate(): string | undefined {
  if (!existsSync(CHROMIUM_PATH)) tryInstall();
  return existsSync(CHROMIUM_PATH) ? CHROMIUM_PATH : undefined;
}

export const chromiumPath = locate();
if (chromiumPath === undefined && !required) {
  console.warn(
    `\n[shelfmark tests] No Chromium at ${CHROMIUM_PATH} and it could not be installed: browser tests are SKIPPED. Install the chromium package or set CI=true to require them.\n`,
  );
}
export const skipBrowser = chromiumPath === undefined && !required;

export interface BrowserSession {
  context: BrowserContext;
  close(): Promise<void>;
}

function executable(): string {
  if (chromiumPath === undefined)
    throw new Error(`Chromium is required (CI=true) but ${CHROMIUM_PATH} does not exist and could not be installed`);
  return chromiumPath;
}

/** A fresh persistent profile (--user-data-dir in a new temporary directory), removed on close. */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<BrowserSession> {
  const executablePath = executable();
  const profile = await mkdtemp(join(tmpdir(), 'shelfmark-chromium-'));
  // launchPersistentContext passes --user-data-dir=<profile> itself.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    timeout: 30_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * One Chromium for a file's tests, each of which opens browser contexts of its own: a context is a
 * fresh in-memory profile (its own cookies and storage), so tests share the process, not their state.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: executable(), headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
}
