import { describe, expect, it } from 'vitest';
import { createBatcher } from './batcher.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

function recordingLoader(values: Record<string, number>) {
  const calls: string[][] = [];
  const load = async (keys: string[]) => {
    calls.push(keys);
    return new Map(keys.filter((key) => key in values).map((key) => [key, values[key]!]));
  };
  return { calls, load };
}

describe('createBatcher', () => {
  it('answers the lookups of one turn with one load of the distinct keys', async () => {
    const { calls, load } = recordingLoader({ a: 1, b: 2 });
    const get = createBatcher(load, (key: string) => key);
    const answers = await Promise.all([get('a'), get('b'), get('a'), get('missing')]);
    expect(answers).toEqual([1, 2, 1, undefined]);
    expect(calls).toEqual([['a', 'b', 'missing']]);
  });

  it('sends lookups of a later turn in a batch of their own', async () => {
    const { calls, load } = recordingLoader({ a: 1, b: 2 });
    const get = createBatcher(load, (key: string) => key);
    const first = get('a');
    await turn();
    const second = get('b');
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(calls).toEqual([['a'], ['b']]);
  });

  it('splits at maxBatch distinct keys', async () => {
    const { calls, load } = recordingLoader({ a: 1, b: 2, c: 3 });
    const get = createBatcher(load, (key: string) => key, { maxBatch: 2 });
    expect(await Promise.all([get('a'), get('b'), get('c')])).toEqual([1, 2, 3]);
    expect(calls).toEqual([['a', 'b'], ['c']]);
  });

  it('fails every lookup of a batch whose load fails, and serves the next batch', async () => {
    let fail = true;
    const get = createBatcher(
      async (keys: string[]) => {
        if (fail) throw new Error('database down');
        return new Map(keys.map((key) => [key, key.length]));
      },
      (key) => key,
    );
    const failed = await Promise.allSettled([get('a'), get('bb')]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await get('ccc')).toBe(3);
  });

  it('turns a load that throws synchronously into rejected lookups', async () => {
    const get = createBatcher<string, number>(
      () => {
        throw new Error('bad');
      },
      (key) => key,
    );
    await expect(get('a')).rejects.toThrow('bad');
  });
});
