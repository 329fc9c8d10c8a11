import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { responseSerializer } from './serializer.js';

const schema = z.object({ id: z.string(), at: z.iso.datetime(), name: z.string().nullable() });
const route = { schema, method: 'GET', url: '/v1/things/:id', httpStatus: '200' };
const answer = { id: 't1', at: '2026-11-25T01:02:03.456Z', name: null };

describe('answers written as presented', () => {
  it('writes an answer as it is, unchecked', () => {
    const write = responseSerializer(false)(route);
    expect(write(answer)).toBe(JSON.stringify(answer));
    // Unchecked, nothing is stripped: that is what the checked mode is for.
    expect(write({ ...answer, digest: 'secret' })).toContain('secret');
  });

  it('writes the same bytes when checked, in the presenter’s key order', () => {
    const write = responseSerializer(true)(route);
    const reordered = { name: 'Web', id: 't1', at: answer.at };
    expect(write(answer)).toBe(JSON.stringify(answer));
    expect(write(reordered)).toBe(JSON.stringify(reordered));
  });

  it('refuses, when checked, a field the schema does not have', () => {
    const write = responseSerializer(true)(route);
    expect(() => write({ ...answer, digest: 'secret' })).toThrow(
      expect.objectContaining({
        code: 'FST_ERR_RESPONSE_SERIALIZATION',
        url: '/v1/things/:id',
        cause: expect.objectContaining({
          issues: [expect.objectContaining({ message: expect.stringContaining('"digest":"secret"') })],
        }),
      }),
    );
  });

  it('refuses, when checked, a value the schema would refuse', () => {
    const write = responseSerializer(true)(route);
    expect(() => write({ ...answer, at: 'yesterday' })).toThrow(
      expect.objectContaining({ code: 'FST_ERR_RESPONSE_SERIALIZATION' }),
    );
  });
});
