import { describe, expect, it } from 'vitest';
import { EMBEDDED_CONTENTION_WARNING, warnOfEmbeddedContention } from './contention-warning.js';

describe('the warning that organizations compete for the embedded database', () => {
  it('is logged when competition starts, at most once an hour, and names the way out', () => {
    const lines: string[] = [];
    let clock = 0;
    const warn = warnOfEmbeddedContention(
      { kind: 'pglite' },
      () => ({ warn: (m) => lines.push(m) }),
      () => clock,
    );
    warn?.();
    clock += 59 * 60_000;
    warn?.();
    expect(lines).toEqual([EMBEDDED_CONTENTION_WARNING]);
    clock += 60_000;
    warn?.();
    expect(lines).toHaveLength(2);
    expect(EMBEDDED_CONTENTION_WARNING).toContain('DATABASE_URL');
  });

  it('says nothing on PostgreSQL, where organizations get connections of their own', () => {
    expect(warnOfEmbeddedContention({ kind: 'postgres' }, () => ({ warn: () => {} }))).toBeUndefined();
  });
});
