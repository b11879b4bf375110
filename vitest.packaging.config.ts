import { defineConfig } from 'vitest/config';

// The suite over what `npm run build` produced: the packed npm tarball installed into an empty
// prefix, the desktop app packed by electron-builder, the renderer's first-load budget.
// `npm run test:packaging` builds first; `npm test` runs it after its build step.
export default defineConfig({
  test: {
    include: ['test/packaging/**/*.test.ts'],
    environment: 'node',
    // The receiver's default port is held for the whole run: no test may need it free.
    globalSetup: ['test/helpers/default-port-held.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
