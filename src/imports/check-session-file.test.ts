import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSessionFile } from './check-session-file.js';

const dir = mkdtempSync(join(tmpdir(), 'results-api-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const id = (n: number) => `5e551000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const line = (n: number, status = 'COMPLETE') => JSON.stringify({ sessionId: id(n), status, startTime: '2024-11-21T12:23:52.614Z' });
let files = 0;
function file(lines: string[]): string {
  const path = join(dir, `f${++files}.ndjson`);
  writeFileSync(path, lines.join('\n'));
  return path;
}
const check = (path: string, limit = 100, fileBytes = 1_000_000) => checkSessionFile(path, 'ndjson', { limit, fileBytes });

describe('checkSessionFile', () => {
  it('counts the sessions of a good file', async () => {
    expect(await check(file([line(1), line(2), '', line(3)]))).toEqual({ sessions: 3, badLines: 0, firstBadLines: [] });
  });

  it('reports each line repeating an earlier sessionId, joined with the line’s own problems', async () => {
    const path = file([line(1), line(2), line(1), line(3), line(2, 'bad'), line(1), 'nope', line(4)]);
    expect(await check(path)).toEqual({
      sessions: 4,
      badLines: 4,
      firstBadLines: [
        { line: 3, message: `sessionId ${id(1)} also appears on line 1` },
        {
          line: 5,
          message:
            `status must be 1-32 uppercase letters, digits or '_', starting with a letter, e.g. COMPLETE (got "bad"); ` +
            `sessionId ${id(2)} also appears on line 2`,
        },
        { line: 6, message: `sessionId ${id(1)} also appears on line 1` },
        { line: 7, message: expect.stringMatching(/^not valid JSON/) },
      ],
    });
  });

  it('describes the first bad lines of either kind and counts every one', async () => {
    // Lines 1-10 bad of their own, 11-20 good, 21-30 repeat 11-20, 31-40 both.
    const lines = [
      ...Array.from({ length: 10 }, (_, i) => line(100 + i, 'bad')),
      ...Array.from({ length: 10 }, (_, i) => line(i)),
      ...Array.from({ length: 10 }, (_, i) => line(i)),
      ...Array.from({ length: 10 }, (_, i) => line(i, 'bad')),
    ];
    const report = await check(file(lines), 15);
    expect(report.badLines).toBe(30);
    expect(report.sessions).toBe(10);
    expect(report.firstBadLines.map((b) => b.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 21, 22, 23, 24, 25]);
  });

  it('is exact when the filter is too small and says "maybe" of new ids', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => line(i));
    lines.push(line(29_000));
    // A 1-byte file size gives the smallest filter: 64 Ki bits for 30,000 ids.
    expect(await check(file(lines), 100, 1)).toEqual({
      sessions: 30_000,
      badLines: 1,
      firstBadLines: [{ line: 30_001, message: `sessionId ${id(29_000)} also appears on line 29001` }],
    });
  });
});
