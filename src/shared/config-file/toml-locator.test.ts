import { describe, expect, it } from 'vitest';
import { TomlLocator } from './toml-locator.js';

function at(text: string, path: (string | number)[], part: 'key' | 'value' = 'key') {
  const locator = new TomlLocator(text);
  const location = locator.find(path);
  if (!location) return undefined;
  const span = part === 'value' ? location.value : location.key;
  return (
    span && { ...locator.lineColumn(span.offset), text: text.slice(span.offset, span.offset + span.length) }
  );
}

describe('TomlLocator', () => {
  it('finds top-level keys and their values', () => {
    const text = '# comment\nmodel = "m"  # trailing\n\ttimeout=5\n';
    expect(at(text, ['model'])).toEqual({ line: 2, column: 1, text: 'model' });
    expect(at(text, ['model'], 'value')).toEqual({ line: 2, column: 9, text: '"m"' });
    expect(at(text, ['timeout'], 'value')).toEqual({ line: 3, column: 10, text: '5' });
  });

  it('follows table headers with quoted and dotted names', () => {
    const text = '[experts."@acme/writer".skills.gh]\ncommand = "npx"\n';
    expect(at(text, ['experts', '@acme/writer', 'skills', 'gh'])).toEqual({
      line: 1,
      column: 32,
      text: 'gh',
    });
    expect(at(text, ['experts', '@acme/writer'])).toEqual({ line: 1, column: 10, text: '"@acme/writer"' });
    expect(at(text, ['experts', '@acme/writer', 'skills', 'gh', 'command'])).toMatchObject({
      line: 2,
      column: 1,
    });
  });

  it('handles dotted keys, quoted keys containing dots, and inline tables', () => {
    const text = 'a.b.c = 1\n"x.y" = { inner = { deep = true }, list = [1, { k = 2 }] }\n';
    expect(at(text, ['a', 'b', 'c'])).toEqual({ line: 1, column: 5, text: 'c' });
    expect(at(text, ['a', 'b'])).toEqual({ line: 1, column: 3, text: 'b' });
    expect(at(text, ['x.y', 'inner', 'deep'], 'value')).toEqual({ line: 2, column: 28, text: 'true' });
    expect(at(text, ['x.y', 'list', 1, 'k'], 'value')).toEqual({ line: 2, column: 53, text: '2' });
  });

  it('locates array elements, across lines and after comments', () => {
    const text = 'envPath = [\n  ".env", # first\n  \'b\',\n]\n';
    expect(at(text, ['envPath', 0])).toEqual({ line: 2, column: 3, text: '".env"' });
    expect(at(text, ['envPath', 1])).toEqual({ line: 3, column: 3, text: "'b'" });
  });

  it('is not fooled by brackets, quotes and equals signs inside strings', () => {
    const text = [
      'instruction = """',
      '[not.a.table]',
      'key = "not a key" \\""" """',
      "literal = '''",
      "[still] ' not a table",
      "'''",
      'after = 1',
    ].join('\n');
    expect(at(text, ['not', 'a', 'table'])).toBeUndefined();
    expect(at(text, ['after'])).toEqual({ line: 7, column: 1, text: 'after' });
    expect(at(text, ['literal'])).toEqual({ line: 4, column: 1, text: 'literal' });
  });

  it('numbers arrays of tables', () => {
    const text = '[[items]]\nname = "a"\n[[items]]\nname = "b"\n';
    expect(at(text, ['items', 1, 'name'], 'value')).toEqual({ line: 4, column: 8, text: '"b"' });
    expect(at(text, ['items'])).toEqual({ line: 1, column: 3, text: 'items' });
  });

  it('falls back to the nearest written ancestor for defaults', () => {
    const locator = new TomlLocator('[experts.writer]\ndescription = "d"\n');
    const found = locator.nearest(['experts', 'writer', 'instruction']);
    expect(found?.exact).toBe(false);
    expect(locator.lineColumn(found!.location.key.offset)).toEqual({ line: 1, column: 10 });
    expect(new TomlLocator('').nearest(['model'])).toBeUndefined();
  });

  it('counts CRLF line endings correctly', () => {
    const text = 'a = 1\r\nb = 2\r\n';
    expect(at(text, ['b'])).toEqual({ line: 2, column: 1, text: 'b' });
  });
});
