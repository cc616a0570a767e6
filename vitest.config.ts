import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files that must have the machine to themselves: they kill and restart processes and measure
 * how long recovery takes (reliability), read a server's memory (memory), or run a cluster of server
 * processes against a deadline (feed-cluster, cluster). They run one at a time, after the rest. The
 * reliability suite's in-process files (races, receiver-outage: no process, no deadline, a manual clock)
 * run with the rest.
 */
const ALONE = [
  'test/reliability/crash.test.ts',
  'test/reliability/db-outage.test.ts',
  'test/reliability/fuzz.test.ts',
  'test/reliability/import-crash.test.ts',
  'test/reliability/scale-out.test.ts',
  'test/memory/**/*.test.ts',
  'test/events/feed-cluster.test.ts',
  'test/e2e/cluster.test.ts',
];

const shared = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
} as const;

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          ...shared,
          name: 'parallel',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE],
          // Two files at once (vitest's default on 2 cores is one), and the modules loaded once per worker
          // rather than once per file: every file builds its own apps and databases, and nothing of
          // ours is kept in module state between them.
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'alone',
          include: ALONE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
