/**
 * The module a worker thread runs. Compiled, it is the .js beside the caller. Run from the TypeScript
 * sources (tests, `tsx`), a thread cannot load a .ts module by itself: a small bootstrap registers
 * tsx's loader in the thread first (a worker's `execArgv` does not carry `--import`).
 */
export function threadEntry(callerUrl: string, name: string): URL {
  if (!callerUrl.endsWith('.ts')) return new URL(`./${name}.js`, callerUrl);
  const module = new URL(`./${name}.ts`, callerUrl).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(module)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}
