import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDeadlineList, type DeadlineNode } from './deadline-list.js';

describe('createDeadlineList', () => {
  it('yields expired items in order and keeps the rest', () => {
    const list = createDeadlineList<string>();
    list.add('a', 10);
    list.add('b', 20);
    list.add('c', 30);
    expect([...list.expired(20)]).toEqual(['a', 'b']);
    expect([...list.expired(25)]).toEqual([]);
    expect([...list.expired(30)]).toEqual(['c']);
  });

  it('matches a plain array model over random joins, leaves (twice, too) and sweeps', () => {
    const operation = fc.oneof(
      fc.constant({ kind: 'add' as const }),
      fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('sweep' as const), upTo: fc.nat({ max: 60 }) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const list = createDeadlineList<number>();
        const nodes: Array<DeadlineNode<number>> = [];
        let model: number[] = [];
        let next = 0;
        for (const op of operations) {
          if (op.kind === 'add') {
            nodes.push(list.add(next, next));
            model.push(next);
            next++;
          } else if (op.kind === 'remove' && nodes.length > 0) {
            const node = nodes[op.pick % nodes.length]!;
            list.remove(node);
            model = model.filter((item) => item !== node.item);
          } else if (op.kind === 'sweep') {
            expect([...list.expired(op.upTo)]).toEqual(model.filter((item) => item <= op.upTo));
            model = model.filter((item) => item > op.upTo);
          }
        }
        expect([...list.expired(Number.POSITIVE_INFINITY)]).toEqual(model);
      }),
      { numRuns: 500 },
    );
  });
});
