import { describe } from 'vitest';
import { scimSuite } from './scim-suite.js';

// test/scim/scim.test.ts on PostgreSQL: two instances with pools of their own on one server database.
describe('SCIM 2.0 provisioning, on PostgreSQL', scimSuite);
