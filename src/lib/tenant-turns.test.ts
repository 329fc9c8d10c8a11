import { describe, expect, it } from 'vitest';
import { createTenantTurns } from './tenant-turns.js';

describe('tenant turns', () => {
  it('gives a free place at once, then each freed place to the next tenant round the ring', () => {
    const turns = createTenantTurns(1);
    const started: string[] = [];
    const start = (name: string) => () => started.push(name);
    turns.wait('a', start('a1'));
    for (let i = 2; i <= 5; i++) turns.wait('a', start(`a${i}`));
    turns.wait('b', start('b1'));
    turns.wait('c', start('c1'));
    turns.wait('b', start('b2'));
    expect(started).toEqual(['a1']);
    expect(turns.waitingCount()).toBe(7);
    for (let i = 0; i < 7; i++) turns.release();
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4', 'a5']);
    expect(turns.waitingCount()).toBe(0);
  });

  it('holds up to its capacity at once', () => {
    const turns = createTenantTurns(3);
    let running = 0;
    for (let i = 0; i < 5; i++) turns.wait('a', () => running++);
    expect(running).toBe(3);
    turns.release();
    expect(running).toBe(4);
  });

  it('lets the messages already here queue before choosing, when told to defer', async () => {
    const turns = createTenantTurns(1, (choose) => setImmediate(choose));
    const started: string[] = [];
    for (let i = 1; i <= 3; i++) turns.wait('a', () => started.push(`a${i}`));
    turns.wait('b', () => started.push('b1'));
    expect(started).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    turns.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a1', 'b1']);
  });

  it('forgets a waiter that gave up, and says when it had already started', () => {
    const turns = createTenantTurns(1);
    const started: string[] = [];
    const first = () => started.push('a1');
    const second = () => started.push('a2');
    turns.wait('a', first);
    turns.wait('a', second);
    expect(turns.cancel('a', first)).toBe(false);
    expect(turns.cancel('a', second)).toBe(true);
    turns.release();
    expect(started).toEqual(['a1']);
    expect(turns.waitingCount()).toBe(0);
  });
});
