import { expect, it } from 'vitest';
import { batchedReads } from './batched-reads.js';

it('holds reads that arrive while every connection is busy with a batch, and sends them as one batch', async () => {
  const batches: string[][] = [];
  const answers: Array<() => void> = [];
  // A database whose answers come when the test says: the first batch stays in flight.
  const loader = batchedReads(
    (keys: readonly string[]) =>
      new Promise<string[]>((resolve) => {
        batches.push([...keys]);
        answers.push(() => resolve(keys.map((key) => key.toUpperCase())));
      }),
    1,
  );
  const first = loader.load('a');
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const later: Array<Promise<string>> = [];
  for (let i = 0; i < 5; i++) {
    await turn();
    later.push(loader.load(`b${i}`));
  }
  await turn();
  expect(batches).toEqual([['a']]); // the rest is held, not sent as a query a turn
  answers.shift()!();
  await expect(first).resolves.toBe('A');
  await turn();
  expect(batches).toEqual([['a'], ['b0', 'b1', 'b2', 'b3', 'b4']]);
  answers.shift()!();
  await expect(Promise.all(later)).resolves.toEqual(['B0', 'B1', 'B2', 'B3', 'B4']);
});
