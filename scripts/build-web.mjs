// Part of `npm run build`, after tsc: bundles the browser code (src/web) into dist/web/, where the
// compiled server reads it at start. The bundling itself lives in src/pages/web-bundle.ts, the same
// code the server uses when it runs from source.
import { writeFileSync } from 'node:fs';
import { writeWebBundles } from '../dist/pages/web-bundle.js';

await writeWebBundles(new URL('../src/web/', import.meta.url), new URL('../dist/web/', import.meta.url));
// When the build finished: tests build only when a source file is newer (test/support/process.ts).
// tsc's incremental build rewrites only the files that changed, so no output file's time says it.
writeFileSync(new URL('../dist/.built', import.meta.url), `${new Date().toISOString()}\n`);
