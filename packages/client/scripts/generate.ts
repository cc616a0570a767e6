/** `npm run sdk:generate`: rewrites packages/client/openapi.json and src/generated/openapi.ts from the service. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DOCUMENT_FILE, serviceDocument, TYPES_FILE, typesFor } from './openapi.js';

const document = await serviceDocument();
await writeFile(DOCUMENT_FILE, document);
await mkdir(dirname(TYPES_FILE), { recursive: true });
await writeFile(TYPES_FILE, await typesFor(document));
console.log(`wrote ${DOCUMENT_FILE}\nwrote ${TYPES_FILE}`);
