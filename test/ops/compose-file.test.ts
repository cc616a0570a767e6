/**
 * The deployment files read as an operator's tools read them: compose.yaml (services, health checks,
 * start order, volumes, the one published port), its .env.example and Caddyfile, and the Dockerfile.
 * Building and running the image is `npm run test:container` (test/container/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigSchema } from '../../src/config/schema.js';

const root = join(import.meta.dirname, '..', '..');
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  env_file?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
  volumes?: string[];
  restart?: string;
  stop_grace_period?: string;
}

interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const compose = parse(read('compose.yaml'), { merge: true }) as Compose;
const { services } = compose;
const service = (name: string): Service => {
  const found = services[name];
  if (found === undefined) throw new Error(`compose.yaml has no service ${name}`);
  return found;
};
const shelfmark = ['migrate', 'api-1', 'api-2', 'worker'];

/** The settings Shelfmark reads, by environment variable. */
const settings = new Set(
  Object.values(ConfigSchema.properties).map((property) => (property as unknown as { env: string }).env),
);
/** Variables compose.yaml itself reads (interpolation), beyond Shelfmark's settings. */
const composeVariables = new Set(
  [...read('compose.yaml').matchAll(/\$\{([A-Z_]+)/g)].map((match) => match[1] ?? '').filter((name) => name !== ''),
);

describe('compose.yaml', () => {
  it('runs PostgreSQL, a one-shot migration, two API nodes, a worker and a proxy', () => {
    expect(Object.keys(services).sort()).toEqual(['api-1', 'api-2', 'migrate', 'postgres', 'proxy', 'worker']);
    expect(service('migrate').command).toEqual(['migrate']);
    expect(service('migrate').restart).toBe('no');
    expect(service('api-1').command).toEqual(['serve', '--role', 'api']);
    expect(service('api-2').command).toEqual(['serve', '--role', 'api']);
    expect(service('worker').command).toEqual(['serve', '--role', 'worker']);
  });

  it('builds every Shelfmark service from the Dockerfile here, configured from .env and the one PostgreSQL', () => {
    for (const name of shelfmark) {
      const { build, image, env_file, environment } = service(name);
      expect(build, name).toBe('.');
      expect(image, name).toMatch(/shelfmark/);
      expect(env_file, name).toBe('.env');
      expect(environment?.DATABASE_URL, name).toMatch(
        /^postgres:\/\/shelfmark:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\//,
      );
      // The admin token comes from the env file, and compose refuses to start without one.
      expect(environment?.ADMIN_TOKEN, name).toMatch(/^\$\{ADMIN_TOKEN:\?/);
      expect(environment?.TRUSTED_PROXIES, name).toBe('uniquelocal');
    }
  });

  it('gives PostgreSQL a health check and a named volume', () => {
    const postgres = service('postgres');
    expect(postgres.healthcheck?.test?.join(' ')).toContain('pg_isready');
    expect(postgres.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes)).toContain('postgres-data');
  });

  it('starts in order: PostgreSQL healthy, then the migration, then the nodes, then the proxy', () => {
    expect(service('migrate').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const name of ['api-1', 'api-2', 'worker'])
      expect(service(name).depends_on?.migrate, name).toEqual({ condition: 'service_completed_successfully' });
    // One API node seeds on first start; the second waits until it is ready.
    expect(service('api-2').depends_on?.['api-1']).toEqual({ condition: 'service_healthy' });
    expect(service('proxy').depends_on).toEqual({
      'api-1': { condition: 'service_healthy' },
      'api-2': { condition: 'service_healthy' },
    });
    for (const [name, { depends_on }] of Object.entries(services))
      for (const target of Object.keys(depends_on ?? {}))
        expect(Object.keys(services), `${name} → ${target}`).toContain(target);
  });

  it('checks the API nodes through the image’s health check, and turns it off where no HTTP is served', () => {
    for (const name of ['api-1', 'api-2']) expect(service(name).healthcheck, name).toBeUndefined();
    expect(read('Dockerfile')).toMatch(/HEALTHCHECK [\s\S]*\/readyz/);
    expect(service('worker').healthcheck).toEqual({ disable: true });
    expect(service('migrate').healthcheck).toEqual({ disable: true });
  });

  it('publishes one port, the proxy’s, on loopback; the nodes are reached through it', () => {
    const published = Object.entries(services).filter(([, { ports }]) => (ports ?? []).length > 0);
    expect(published.map(([name]) => name)).toEqual(['proxy']);
    expect(service('proxy').ports).toEqual([`127.0.0.1:$\{SHELFMARK_PORT:-3000}:80`]);
    const caddyfile = read('deploy/Caddyfile');
    expect(service('proxy').volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(caddyfile).toMatch(/reverse_proxy api-1:3000 api-2:3000/);
    expect(caddyfile).toMatch(/health_uri \/readyz/);
  });

  it('gives the nodes time to finish webhook attempts in flight when stopped', () => {
    for (const name of shelfmark) expect(service(name).stop_grace_period, name).toBe('30s');
  });
});

describe('.env.example', () => {
  const lines = read('.env.example').split('\n');
  const assigned = lines
    .map((line) => /^#?\s?([A-Z][A-Z0-9_]+)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);

  it("names only Shelfmark's settings and the variables compose.yaml reads", () => {
    expect(assigned.length).toBeGreaterThan(3);
    for (const name of assigned) expect(settings.has(name) || composeVariables.has(name), name).toBe(true);
  });

  it('has a line for every variable compose.yaml requires', () => {
    const required = [...read('compose.yaml').matchAll(/\$\{([A-Z_]+):\?/g)].map((match) => match[1]);
    expect(required.length).toBeGreaterThan(0);
    for (const name of required) expect(lines, String(name)).toContain(`${name}=`);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds on the official Node.js 22 image by default, in two stages', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    expect(dockerfile.match(/^FROM \$\{NODE_IMAGE\}/gm)).toHaveLength(2);
  });

  it('runs as an unprivileged user, with its data on /data and `serve` as the default command', () => {
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^VOLUME \/data$/m);
    expect(dockerfile).toMatch(/DATABASE_URL=sqlite:\/data\/shelfmark\.sqlite/);
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "\/app\/bin\/shelfmark\.js"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["serve"\]$/m);
  });

  it('sends the build only what the image is built from', () => {
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'));
    expect(read('.dockerignore')).toMatch(/^\*$/m);
    for (const path of allowed) expect(path).not.toMatch(/test|bench|docs|\.env|node_modules|dist/);
  });
});
