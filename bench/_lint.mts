import { readFileSync } from 'node:fs';
import { Document, Spectral } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
const spectral = new Spectral();
spectral.setRuleset({ extends: [[oas, 'recommended']] } as never);
for (const f of process.argv.slice(2)) {
  const r = await spectral.run(new Document(readFileSync(f, 'utf8'), parsers.Json, f));
  console.log(f, 'errors', r.filter((x) => x.severity === 0).length, 'warnings', r.filter((x) => x.severity === 1).length);
}
