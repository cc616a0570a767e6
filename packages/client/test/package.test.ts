/**
 * The SDK can never drift from the service: its OpenAPI document and generated types are regenerated
 * from the app as it is now and compared with the checked-in files. And the package, as built, is ESM
 * with declarations and no runtime dependency.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_FILE, serviceDocument, TYPES_FILE, typesFor } from '../scripts/openapi.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

describe('generated from the service', () => {
  it('openapi.json and src/generated/openapi.ts equal what the service publishes now (else run npm run sdk:generate)', async () => {
    const document = await serviceDocument();
    const checkedIn = await readFile(DOCUMENT_FILE, 'utf8');
    expect(checkedIn, 'packages/client/openapi.json is stale: run `npm run sdk:generate`').toBe(document);
    expect(
      await readFile(TYPES_FILE, 'utf8'),
      'packages/client/src/generated/openapi.ts is stale: run `npm run sdk:generate`',
    ).toBe(await typesFor(document));
  });

  it('every path the SDK calls is in the document', async () => {
    const document = JSON.parse(await readFile(DOCUMENT_FILE, 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const called: [string, string][] = [
      ['get', '/api/auth/token'],
      ['get', '/api/v1/offers'],
      ['get', '/api/v1/offers/{id}'],
      ['get', '/api/lml/v1/schools'],
      ['get', '/api/lml/v1/schools/{identifier}'],
      ['get', '/api/lml/v1/lists'],
      ['get', '/api/lml/v1/lists/{identifier}'],
      ['get', '/api/lml/v1/structure'],
      ['post', '/api/lml/v1/subscriptions'],
      ['get', '/api/lml/v1/subscriptions'],
      ['get', '/api/lml/v1/subscriptions/{id}'],
      ['delete', '/api/lml/v1/subscriptions/{id}'],
      ['post', '/api/lml/v1/subscriptions/{id}/enable'],
      ['post', '/api/lml/v1/subscriptions/{id}/ping'],
      ['get', '/api/lml/v1/subscriptions/{id}/deliveries'],
      ['post', '/api/lml/v1/webhook-secret'],
    ];
    expect(called.filter(([method, path]) => document.paths[path]?.[method] === undefined)).toEqual([]);
    // And every /api/ path written in the client's source (parameters normalised) is one of those.
    const source = await readFile(join(PACKAGE, 'src/client.ts'), 'utf8');
    const normalise = (path: string): string => path.replace(/\{[^}]+\}|\$\{[^}]+\}/g, '{}');
    const inSource = [...source.matchAll(/['`](\/api\/[^'`]*)['`]/g)].map((match) => normalise(match[1]!));
    const documented = new Set(Object.keys(document.paths).map(normalise));
    expect(new Set(inSource).size).toBeGreaterThanOrEqual(12);
    expect(inSource.filter((path) => !documented.has(path))).toEqual([]);
  });
});

describe('the built package', () => {
  it('is ESM with declarations, importable by its name, with no runtime dependency', async () => {
    const manifest = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
    const built = await import('@shelfmark/client');
    expect(typeof built.ShelfmarkClient).toBe('function');
    expect(typeof built.verifyWebhook).toBe('function');
    const webhooks = await import('@shelfmark/client/webhooks');
    expect(typeof webhooks.nodeWebhookHandler).toBe('function');

    const files = (await readdir(join(PACKAGE, 'dist'), { recursive: true })).map(String);
    for (const name of ['index.js', 'index.d.ts', 'client.d.ts', 'webhooks/index.d.ts', 'generated/openapi.d.ts'])
      expect(files, name).toContain(name);
    // Every import of the compiled code is relative: the platform is the only runtime dependency.
    const external: string[] = [];
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      const code = await readFile(join(PACKAGE, 'dist', file), 'utf8');
      for (const match of code.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*from\s*['"]([^'"]+)['"]/g))
        if (!match[1]!.startsWith('.')) external.push(`${file}: ${match[1]!}`);
      for (const match of code.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g))
        if (!match[1]!.startsWith('.')) external.push(`${file}: ${match[1]!}`);
    }
    expect(external).toEqual([]);
  });

  it('the tarball ships code, declarations and maps that carry their sources — not the 800 KB OpenAPI document', async () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE, encoding: 'utf8' }),
    ) as { files: { path: string }[]; size: number }[];
    const paths = packed!.files.map((file) => file.path);
    expect(paths).not.toContain('openapi.json');
    expect(paths.filter((path) => path.startsWith('src/'))).toEqual([]);
    expect(paths.filter((path) => path.endsWith('.tsbuildinfo') || path.endsWith('.d.ts.map'))).toEqual([]);
    expect(packed!.size).toBeLessThan(200_000);
    // A stack trace through a map must land in source the package actually ships.
    for (const map of paths.filter((path) => path.endsWith('.js.map'))) {
      const parsed = JSON.parse(await readFile(join(PACKAGE, map), 'utf8')) as { sourcesContent?: unknown[] };
      expect(parsed.sourcesContent?.length, map).toBeGreaterThan(0);
    }
  });

  it('the packed README links only to what ships or to absolute addresses', async () => {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE, encoding: 'utf8' }),
    ) as { files: { path: string }[] }[];
    const paths = new Set(packed!.files.map((file) => file.path));
    expect(paths.has('README.md')).toBe(true);
    const readme = await readFile(join(PACKAGE, 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
    const broken = targets.filter(
      (target) => !/^(https?:|mailto:|#)/.test(target) && !paths.has(target.replace(/^\.\//, '').split('#')[0] ?? ''),
    );
    expect(broken).toEqual([]);
    expect(readme).not.toContain('../../');
  });

  it('npm pack leaves nothing for git to pick up: *.tgz is ignored', async () => {
    const ignored = execFileSync(
      'git',
      ['check-ignore', 'packages/client/shelfmark-client-0.1.0.tgz', 'shelfmark-client-0.1.0.tgz'],
      {
        cwd: join(PACKAGE, '..', '..'),
        encoding: 'utf8',
      },
    );
    expect(ignored.trim().split('\n')).toHaveLength(2);
  });
});
