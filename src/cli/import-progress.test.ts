import { describe, expect, it } from 'vitest';
import { ImportProgress } from './import-progress.js';

const terminal = () => {
  const written: string[] = [];
  return { written, stream: { write: (chunk: string) => written.push(chunk), columns: 80, isTTY: true } };
};

describe('import progress', () => {
  it('draws megabytes read per phase, redraws only when the bar moves, and erases itself', () => {
    const { written, stream } = terminal();
    const progress = new ImportProgress(stream, 4_000_000);
    progress.update('reading', 1_000_000);
    progress.update('reading', 1_000_100); // the same 0.5% step: not redrawn
    progress.update('reading', 4_000_000);
    progress.update('writing', 4_000_000);
    progress.clear();
    expect(written).toEqual([
      `\rreading (MB) [${'#'.repeat(10)}${'-'.repeat(30)}] 1/4  25%\x1b[K`,
      `\rreading (MB) [${'#'.repeat(40)}] 4/4 100%\x1b[K`,
      '\r\x1b[K',
      `\rwriting (MB) [${'#'.repeat(40)}] 4/4 100%\x1b[K`,
      '\r\x1b[K',
    ]);
  });

  it('draws nothing when stderr is not a terminal', () => {
    const { written, stream } = terminal();
    const progress = new ImportProgress({ ...stream, isTTY: false }, 100);
    progress.update('reading', 50);
    progress.clear();
    expect(written).toEqual([]);
  });
});
