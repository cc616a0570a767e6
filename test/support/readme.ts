import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/**
 * The README's "Try it" commands as one bash script against `origin` (verbatim otherwise): a command
 * continued over lines with `\` is one command, and each command's output ends a line of its own, so
 * the answers can be checked one by one. Variable assignments (TOKEN=…, LIST=…) print nothing.
 */
export function readmeScript(origin: string): string {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  const block = /## Try it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBeDefined();
  const commands = (block ?? '')
    .replaceAll('http://localhost:3000', origin)
    .split('\n')
    .reduce<string[]>((all, line) => {
      if (line.startsWith('#') || line.trim() === '') return all;
      const last = all.length - 1;
      if (last >= 0 && (all[last] ?? '').endsWith('\\')) all[last] = `${(all[last] ?? '').slice(0, -1)} ${line.trim()}`;
      else all.push(line);
      return all;
    }, []);
  return commands.map((command) => (/^[A-Z_]+=/.test(command) ? command : `${command}; echo`)).join('\n');
}
