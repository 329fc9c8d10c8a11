import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { API_TYPES_PATH, renderApiTypes } from '../../console/scripts/api-types.js';

it("the console's typed client matches the API it calls (npm run console:api-types after a schema change)", async () => {
  expect(readFileSync(API_TYPES_PATH, 'utf8')).toBe(await renderApiTypes());
});
