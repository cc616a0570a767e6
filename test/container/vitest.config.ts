import { defineConfig } from 'vitest/config';

/**
 * `npm run test:container`: the container image built and run with podman (image.container.ts). Not
 * part of `npm test`: building the image compiles the service and better-sqlite3 (minutes), and it
 * needs podman and the set-up in docs/operating/production.md#testing-the-image.
 */
export default defineConfig({
  test: {
    include: ['test/container/**/*.container.ts'],
    testTimeout: 120_000,
    hookTimeout: 60 * 60_000,
    fileParallelism: false,
    reporters: ['verbose'],
  },
});
