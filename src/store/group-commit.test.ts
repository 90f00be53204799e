import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes what arrives together in one write, at most `max` items each, answering each caller its own item', async () => {
    const writes: number[][] = [];
    const group = new GroupCommit<number, string>(async (items) => {
      writes.push(items);
      return items.map((n) => `answer ${n}`);
    }, 3);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => group.add(n)));
    expect(answers).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 4', 'answer 5']);
    expect(writes).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('takes what arrives during a write into the next one', async () => {
    const writes: number[][] = [];
    let late: Promise<string> | undefined;
    const group = new GroupCommit<number, string>(async (items) => {
      writes.push(items);
      late ??= group.add(9);
      return items.map(String);
    }, 10);
    expect(await Promise.all([group.add(1), group.add(2)])).toEqual(['1', '2']);
    expect(await late).toBe('9');
    expect(writes).toEqual([[1, 2], [9]]);
  });

  it('tries each item of a failed write once more alone, so only the failing item fails its caller', async () => {
    const writes: number[][] = [];
    const group = new GroupCommit<number, number>(async (items) => {
      writes.push(items);
      if (items.includes(2)) throw new Error(`cannot write ${items.join(', ')}`);
      return items.map((n) => n * 10);
    }, 10);
    const settled = await Promise.allSettled([1, 2, 3].map((n) => group.add(n)));
    expect(settled).toEqual([
      { status: 'fulfilled', value: 10 },
      { status: 'rejected', reason: new Error('cannot write 2') },
      { status: 'fulfilled', value: 30 },
    ]);
    expect(writes).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('answers an item whose write failed once from its second try', async () => {
    let failures = 1;
    const group = new GroupCommit<number, number>(async (items) => {
      if (failures-- > 0) throw new Error('connection dropped');
      return items.map((n) => n + 1);
    }, 10);
    expect(await group.add(1)).toBe(2);
  });
});
