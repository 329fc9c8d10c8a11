import { defineConfig } from 'vitest/config';

const FILES = ['src/**/*.test.ts', 'test/**/*.test.ts'];
/** Several processes on one database: they need a PostgreSQL server. */
const SERVER_FILES = '**/*.pg.test.ts';

// What every file runs with, whatever its database.
const common = {
  pool: 'forks' as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // expect.poll waits for what a page or a server does next; 1 s (vitest's default) is too short on a busy
  // 2-core machine (a navigation that runs scrypt and loads a page's chunk). A poll that never matches
  // still fails, after this.
  expect: { poll: { timeout: 10_000 } },
  // Services the suite starts as processes hold every answer to its schema too (src/http/serializer.ts).
  env: { CADRE_CHECK_RESPONSES: 'true' },
};

// Each project is a database, and vitest labels each file's line with it (`|PGlite| test/…`): with
// DATABASE_URL set (CI's second run), every file runs on that server; otherwise the files run on embedded
// PGlite, except *.pg.test.ts, which run on a PostgreSQL server the run starts for them
// (test/postgres-setup.ts, only when one of them is part of the run).
const projects = process.env.DATABASE_URL
  ? [{ test: { ...common, name: 'PostgreSQL (DATABASE_URL)', include: FILES } }]
  : [
      {
        test: {
          ...common,
          name: 'PGlite',
          include: FILES,
          exclude: ['**/node_modules/**', SERVER_FILES],
        },
      },
      {
        test: {
          ...common,
          name: 'PostgreSQL (own server)',
          include: [SERVER_FILES],
          exclude: ['**/node_modules/**'],
          globalSetup: ['test/postgres-setup.ts'],
          setupFiles: ['test/support/postgres-env.ts'],
        },
      },
    ];

export default defineConfig({
  test: {
    projects,
    // The build, the record of what tests start, and the end-of-run check that nothing is left behind.
    globalSetup: ['test/global-setup.ts'],
    // Two cores: two files at a time keeps PGlite start-ups and real servers from starving each other.
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ['default'],
  },
});
