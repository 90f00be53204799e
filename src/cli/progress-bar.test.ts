import { describe, expect, it } from 'vitest';
import { ProgressBar, renderProgress } from './progress-bar.js';

describe('progress bar', () => {
  it('draws the share done, the counts and the percentage', () => {
    expect(renderProgress('exporting', 1500, 3000, 80)).toBe(`exporting [${'#'.repeat(20)}${'-'.repeat(20)}] 1500/3000  50%`);
    expect(renderProgress('exporting', 3000, 3000, 80)).toBe(`exporting [${'#'.repeat(40)}] 3000/3000 100%`);
  });

  it('counts an empty test as done, and never overflows when the total shrank meanwhile', () => {
    expect(renderProgress('x', 0, 0, 80)).toBe(`x [${'#'.repeat(40)}] 0/0 100%`);
    expect(renderProgress('x', 12, 10, 80)).toBe(`x [${'#'.repeat(40)}] 12/10 100%`);
  });

  it('fits a narrow terminal', () => {
    expect(renderProgress('exporting', 1, 4, 40)).toBe(`exporting [#####-------------] 1/4  25%`);
    expect(renderProgress('exporting', 1, 4, 20)).toBe(`exporting [###-------] 1/4  25%`);
  });

  it('redraws in place and erases itself', () => {
    const written: string[] = [];
    const bar = new ProgressBar({ write: (chunk: string) => written.push(chunk), columns: 80 }, 'exporting');
    bar.clear();
    bar.update(1, 2);
    bar.clear();
    expect(written).toEqual([`\rexporting [${'#'.repeat(20)}${'-'.repeat(20)}] 1/2  50%\x1b[K`, '\r\x1b[K']);
  });
});
