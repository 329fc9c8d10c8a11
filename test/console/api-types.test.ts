import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { API_TYPES_PATH, renderApiTypes } from '../../console/scripts/api-types.js';
import { consoleLists } from '../../console/scripts/console-lists.js';

it("the typed clients' API types (console and CLI, admin API included) match the API (npm run console:api-types after a schema change)", async () => {
  expect(readFileSync(API_TYPES_PATH, 'utf8')).toBe(await renderApiTypes());
  // It builds a whole app for its /openapi.json and renders it: near 30 s alone on a busy machine.
}, 120_000);

it("the console's copies of the server's lists (pages, event types, permission areas) match the server (npm run console:api-types)", () => {
  const lists = consoleLists();
  expect(lists.map(({ path }) => path.replace(/.*\/console\/src\//, ''))).toEqual([
    'generated/console-pages.ts',
    'generated/event-types.ts',
    'generated/permission-areas.ts',
  ]);
  for (const { path, text } of lists) expect(readFileSync(path, 'utf8'), path).toBe(text);
});
