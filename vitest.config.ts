import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // *.pg.test.ts need a PostgreSQL server (several processes on one database): collected when DATABASE_URL is set.
    exclude: ['**/node_modules/**', ...(process.env.DATABASE_URL ? [] : ['**/*.pg.test.ts'])],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Two cores: two files at a time keeps PGlite start-ups and real servers from starving each other.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
