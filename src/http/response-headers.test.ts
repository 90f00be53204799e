import { GCProfiler } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { integerHeaderValue } from './response-headers.js';

/**
 * Bytes the old generation gained across the young-generation collections while `convert` ran
 * on 100,000 distinct numbers, each beside ~8 KB of short-lived garbage, as a request is.
 */
function promotedWhileConverting(convert: (n: number) => string): number {
  const profiler = new GCProfiler();
  profiler.start();
  let digits = 0;
  for (let n = 999_000_000; n > 998_900_000; n--) {
    digits += convert(n).length;
    digits += new Array<number>(1000).fill(n).length;
  }
  const { statistics } = profiler.stop() ?? { statistics: [] };
  expect(digits).toBeGreaterThan(0);
  const oldSpace = (spaces: { spaceName: string; spaceUsedSize: number }[]) => spaces.find((s) => s.spaceName === 'old_space')?.spaceUsedSize ?? 0;
  return statistics
    .filter((gc) => gc.gcType === 'Scavenge' || gc.gcType === 'MinorMarkSweep')
    .reduce((sum, gc) => sum + oldSpace(gc.afterGC.heapSpaceStatistics) - oldSpace(gc.beforeGC.heapSpaceStatistics), 0);
}

describe('integerHeaderValue', () => {
  it('gives the decimal digits of a non-negative integer', () => {
    for (const n of [0, 7, 10, 599, 1_000_000_000, Number.MAX_SAFE_INTEGER]) expect(integerHeaderValue(n)).toBe(String(n));
  });

  it('leaves nothing per call in the old generation, where String(n) leaves each string', () => {
    const MB = 1024 * 1024;
    // The control shows this process's collector behaves as the comment on integerHeaderValue says.
    expect(promotedWhileConverting((n) => String(n))).toBeGreaterThan(1.5 * MB);
    expect(promotedWhileConverting(integerHeaderValue)).toBeLessThan(0.5 * MB);
  });
});
