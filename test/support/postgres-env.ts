import { inject } from 'vitest';

// Set-up file of the "PostgreSQL (own server)" project (vitest.config.ts): each *.pg.test.ts file runs with
// DATABASE_URL pointing at the server test/postgres-setup.ts started, exactly as when DATABASE_URL is given.
// Each test file runs in a process of its own (vitest's forks pool), so the PGlite files never see it.
process.env.DATABASE_URL = inject('ownPostgresUrl');
