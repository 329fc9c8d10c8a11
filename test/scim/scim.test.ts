import { describe } from 'vitest';
import { scimSuite } from './scim-suite.js';

// On PGlite; scim.pg.test.ts runs the same suite on PostgreSQL.
describe('SCIM 2.0 provisioning', scimSuite);
