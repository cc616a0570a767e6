// Part of `npm run build`, after tsc: bundles the browser code (src/web) into dist/web/, where the
// compiled server reads it at start. The bundling itself lives in src/ops/web-bundle.ts, the same
// code the server uses when it runs from source.
import { writeWebBundles } from '../dist/ops/web-bundle.js';

await writeWebBundles(new URL('../src/web/', import.meta.url), new URL('../dist/web/', import.meta.url));
