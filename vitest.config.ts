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
    // expect.poll waits for what a page or a server does next; 1 s (vitest's default) is too short on a busy
    // 2-core machine (a navigation that runs scrypt and loads a page's chunk). A poll that never matches
    // still fails, after this.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default'],
  },
});
