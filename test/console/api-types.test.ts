import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { API_TYPES_PATH, renderApiTypes } from '../../console/scripts/api-types.js';

it("the typed clients' API types (console and CLI, admin API included) match the API (npm run console:api-types after a schema change)", async () => {
  expect(readFileSync(API_TYPES_PATH, 'utf8')).toBe(await renderApiTypes());
});
