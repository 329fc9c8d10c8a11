import { expect, it } from 'vitest';
import { preparedShapes } from './prepared.js';

it('names a statement per shape, builds each once, and keeps every name within 63 bytes', () => {
  const built: string[] = [];
  const statement = preparedShapes(
    'audit_page',
    (shape: { before: boolean; sort: string; aVeryLongPartNameIndeed: boolean }, name) => {
      built.push(name);
      return { name, shape };
    },
  );
  const first = statement({ before: false, sort: 'name', aVeryLongPartNameIndeed: false });
  expect(first.name).toBe('audit_page_sort_name');
  expect(statement({ before: false, sort: 'name', aVeryLongPartNameIndeed: false })).toBe(first);
  expect(statement({ before: true, sort: 'name', aVeryLongPartNameIndeed: false }).name).toBe(
    'audit_page_before_sort_name',
  );
  const long = statement({ before: true, sort: 'createdAt', aVeryLongPartNameIndeed: true }).name;
  const other = statement({ before: false, sort: 'createdAt', aVeryLongPartNameIndeed: true }).name;
  expect(long.length).toBeLessThanOrEqual(63);
  expect(other.length).toBeLessThanOrEqual(63);
  expect(long).not.toBe(other);
  expect(built).toHaveLength(4);
});
