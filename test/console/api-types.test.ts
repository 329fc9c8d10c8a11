import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  API_TYPES_PATH,
  CLI_API_TYPES_PATH,
  renderApiTypes,
  renderCliApiTypes,
} from '../../console/scripts/api-types.js';

it("the console's typed client matches the API it calls (npm run console:api-types after a schema change)", async () => {
  expect(readFileSync(API_TYPES_PATH, 'utf8')).toBe(await renderApiTypes());
});

it("the CLI's typed client matches the API it calls, admin API included (same command)", async () => {
  expect(readFileSync(CLI_API_TYPES_PATH, 'utf8')).toBe(await renderCliApiTypes());
});
