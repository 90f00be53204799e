import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { rejectionOf } from '../../test/helpers/rejection.js';
import { openSqliteStore } from '../../test/helpers/stores.js';
import { StoreConflictError } from '../store/conflicts.js';
import type { Store } from '../store/open-store.js';
import type { SessionRepository } from '../store/sessions.js';
import { BadSessionFileError } from './check-session-file.js';
import { importSessionFile, type ImportFileOptions } from './import-session-file.js';

const dir = mkdtempSync(join(tmpdir(), 'results-api-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const by = { actor: 'cli:test' };
const id = (n: number) => `5e551000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const line = (n: number, status = 'COMPLETE') =>
  JSON.stringify({ sessionId: id(n), status, startTime: new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString() });
/** Enough lines for several batches of OPTIONS.batchSize, so a late bad line comes after sessions were handed on. */
const goodLines = (count: number, from = 0) => Array.from({ length: count }, (_, i) => line(from + i));
const OPTIONS: ImportFileOptions = { limit: 100, fileBytes: 10_000_000, batchSize: 1000 };

let files = 0;
function file(lines: string[]): string {
  const path = join(dir, `f${++files}.ndjson`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const refusal = (promise: Promise<unknown>) => rejectionOf(promise, BadSessionFileError);

describe('importSessionFile', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openSqliteStore(join(dir, `store-${++files}.db`), new ManualClock(Date.UTC(2026, 0, 1)));
    await store.database.migrate();
    await store.directory.createWorkspace({ id: 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01', name: 'Lab' }, by);
    await store.directory.createTest({ id: TEST_ID, workspaceId: 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01', title: 'T', productType: 'survey' }, by);
    await store.sessions.importSessions(TEST_ID, [{ sessionId: id(0), audienceId: null, status: 'OLD', startTime: 0, finishTime: null }], by);
  });
  afterEach(() => store.database.close());

  const stored = async () => ({ sessions: await store.sessions.listSessions(TEST_ID, 0, 100_000), count: (await store.directory.getTest(TEST_ID))?.sessionCount });

  it('imports a file batch by batch, as one import', async () => {
    const progress: string[] = [];
    const result = await importSessionFile(store.sessions, TEST_ID, file(goodLines(5000)), 'ndjson', by, {
      ...OPTIONS,
      onProgress: (phase) => progress.at(-1) !== phase && progress.push(phase),
    });
    expect(result).toEqual({ inserted: 4999, updated: 1, unchanged: 0 });
    expect((await stored()).count).toBe(5000);
    expect(progress).toEqual(['reading', 'writing']);
    expect((await store.audit.list()).filter((e) => e.action === 'sessions.import')).toHaveLength(2);
  });

  it('writes nothing when a line near the end is bad, and reports every bad line', async () => {
    const before = await stored();
    const lines = [...goodLines(4000, 1), 'not json', ...goodLines(10, 5000), line(6000, 'lower')];
    const error = await refusal(importSessionFile(store.sessions, TEST_ID, file(lines), 'ndjson', by, OPTIONS));
    expect(error.report.badLines).toBe(2);
    expect(error.report.firstBadLines.map((b) => b.line)).toEqual([4001, 4012]);
    expect(await stored()).toEqual(before);
  });

  it('writes nothing when a sessionId repeats far apart', async () => {
    const before = await stored();
    const error = await refusal(importSessionFile(store.sessions, TEST_ID, file([...goodLines(4000, 1), line(17)]), 'ndjson', by, OPTIONS));
    expect(error.report).toEqual({
      sessions: 4000,
      badLines: 1,
      firstBadLines: [{ line: 4001, message: `sessionId ${id(17)} also appears on line 17` }],
    });
    expect(await stored()).toEqual(before);
  });

  describe('when the store refuses before the file is read to its end', () => {
    /** A store that takes two batches, then refuses as PostgreSQL does on finding another test's session. */
    const refusingStore: Pick<SessionRepository, 'importSessionStream'> = {
      async importSessionStream(_testId, batches) {
        let taken = 0;
        for await (const _batch of batches) {
          if (++taken === 2) throw new StoreConflictError('foreign_session', 'session x belongs to another test');
        }
        throw new Error('unreachable');
      },
    };

    it('reports the file’s bad lines if it has any', async () => {
      const lines = [...goodLines(4000), line(9000, 'late-bad')];
      const error = await refusal(importSessionFile(refusingStore, TEST_ID, file(lines), 'ndjson', by, OPTIONS));
      expect(error.report.firstBadLines.map((b) => b.line)).toEqual([4001]);
    });

    it('passes the store’s refusal on otherwise', async () => {
      const refused = importSessionFile(refusingStore, TEST_ID, file(goodLines(4000)), 'ndjson', by, OPTIONS);
      await expect(refused).rejects.toThrow(new StoreConflictError('foreign_session', 'session x belongs to another test'));
    });
  });
});
