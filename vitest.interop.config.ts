import { defineConfig } from 'vitest/config';

// `npm run test:interop`: Perstack's real CLI and runtime against Cadre (test/interop, docs/perstack.md "Tested
// against Perstack's tools"). Apart from `npm test`, whose files it does not share: it needs Perstack's packs
// beside the clone (`../shared/perstack`), which `npm test` never does.
export default defineConfig({
  test: {
    include: ['test/interop/**/*.interop.ts'],
    pool: 'forks',
    // One file, its scenarios in order: they build on each other (publish, then tag, then run).
    maxWorkers: 1,
    minWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // The build and the record of what tests start (test/global-setup.ts), then Perstack's tools.
    globalSetup: ['test/global-setup.ts', 'test/interop/perstack-tools.ts'],
    reporters: ['default'],
  },
});
