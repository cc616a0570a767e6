#!/usr/bin/env node
// The `shelfmark` command. Plain JavaScript so it runs without a TypeScript toolchain; the commands
// themselves live in the compiled dist/main/cli.js (built by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/main/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(compiled))) {
  console.error('shelfmark: dist/main/cli.js is missing: run npm run build first');
  process.exit(2);
}

const { runCli } = await import(compiled.href);
try {
  const outcome = await runCli(process.argv.slice(2));
  // `serve` keeps running until a signal; every other command ends here, even if a pool or timer
  // lingers, but only once stdout and stderr are flushed (pipes are asynchronous on some platforms).
  if (outcome !== 'running') process.stdout.write('', () => process.stderr.write('', () => process.exit(outcome)));
} catch (error) {
  console.error('shelfmark:', error instanceof Error ? error.message : error);
  process.exit(1);
}
