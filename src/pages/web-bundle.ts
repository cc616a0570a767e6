/**
 * The browser pages' scripts and stylesheet, made from src/web (TypeScript with the DOM lib).
 *
 * Running from dist/ (production): `npm run build` wrote them to dist/web/ (scripts/build-web.mjs),
 * and they are read once at start; esbuild is a devDependency and is never loaded.
 * Running from src/ (tsx, vitest, app.inject without a build): there is no built copy beside this
 * module, so src/web is bundled in-process with esbuild's API, once per process (a few hundred ms).
 * The choice follows this module's own location, not whether some dist/web happens to exist, so a
 * test can never be served a stale build of code it has just changed.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface WebAssets {
  consoleJs: string;
  portalJs: string;
  css: string;
}

/** Entry module (under src/web) → bundle file name (under dist/web). */
const ENTRIES = { consoleJs: ['console/main.ts', 'console.js'], portalJs: ['portal/main.ts', 'portal.js'] } as const;
const CSS_FILE = 'app.css';

/** Bundles the sources in `sourceDir` (src/web) in memory. */
export async function bundleWeb(sourceDir: URL): Promise<WebAssets> {
  const esbuild = await import('esbuild');
  const bundle = async (entry: string): Promise<string> => {
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(new URL(entry, sourceDir))],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      charset: 'utf8',
      legalComments: 'none',
      logLevel: 'silent',
    });
    const text = result.outputFiles[0]?.text;
    if (text === undefined) throw new Error(`esbuild produced nothing for ${entry}`);
    return entry.endsWith('.css') ? text : `'use strict';\n${text}`;
  };
  const [consoleJs, portalJs, css] = await Promise.all([
    bundle(ENTRIES.consoleJs[0]),
    bundle(ENTRIES.portalJs[0]),
    bundle(CSS_FILE),
  ]);
  return { consoleJs, portalJs, css };
}

/** The build step: bundles `sourceDir` and writes the files the server reads to `outDir`. */
export async function writeWebBundles(sourceDir: URL, outDir: URL): Promise<void> {
  const assets = await bundleWeb(sourceDir);
  await mkdir(outDir, { recursive: true });
  await Promise.all([
    writeFile(new URL(ENTRIES.consoleJs[1], outDir), assets.consoleJs),
    writeFile(new URL(ENTRIES.portalJs[1], outDir), assets.portalJs),
    writeFile(new URL(CSS_FILE, outDir), assets.css),
  ]);
}

async function readBuilt(dir: URL): Promise<WebAssets> {
  const [consoleJs, portalJs, css] = await Promise.all(
    [ENTRIES.consoleJs[1], ENTRIES.portalJs[1], CSS_FILE].map((name) => readFile(new URL(name, dir), 'utf8')),
  );
  return { consoleJs: consoleJs ?? '', portalJs: portalJs ?? '', css: css ?? '' };
}

let loaded: Promise<WebAssets> | undefined;

/** The assets for this process: dist/web when running built, else bundled from src/web (see above). */
export function loadWebAssets(): Promise<WebAssets> {
  // dist/pages/ → dist/web/ (built files); src/pages/ → src/web/ (sources).
  const dir = new URL('../web/', import.meta.url);
  loaded ??= existsSync(new URL(ENTRIES.consoleJs[1], dir))
    ? readBuilt(dir)
    : existsSync(new URL(ENTRIES.consoleJs[0], dir))
      ? bundleWeb(dir)
      : Promise.reject(new Error(`no browser assets in ${fileURLToPath(dir)}: run npm run build`));
  return loaded;
}
