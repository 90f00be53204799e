import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreAt } from '../helpers/stores.js';
import type { Session } from '../../src/store/store.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const WS_ID = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const OTHER_TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a22';
const S = (n: number) => `0b0c4a3e-1111-4c1a-9a55-${String(n).padStart(12, '0')}`;
const AUDIENCE = '7d3f0a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const HEADER = 'sessionId,audienceId,status,startTime,finishTime';

interface ImportJson {
  testId: string;
  inserted: number;
  updated: number;
  unchanged: number;
}

describe('results-api sessions import', () => {
  let cli: CliSandbox;

  /** What the database holds for a test, newest first, read the way the API reads it. */
  async function storedSessions(testId: string): Promise<Session[]> {
    const store = await openStoreAt(cli.databaseUrl);
    try {
      return await store.sessions.listSessions(testId, 0, 1000);
    } finally {
      await store.database.close();
    }
  }
  const sessionCount = async (testId = TEST_ID) => {
    const tests = await cli.json<{ id: string; sessionCount: number }[]>(['tests', 'list', '--workspace', WS_ID]);
    return tests.find((t) => t.id === testId)!.sessionCount;
  };

  beforeAll(async () => {
    cli = cliSandbox();
    await cli.json(['workspaces', 'create', '--name', 'Lab', '--id', WS_ID]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--id', TEST_ID]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'Other', '--id', OTHER_TEST_ID]);
  });
  afterAll(() => cli.cleanup());

  it('imports NDJSON and prints the counts', async () => {
    const file = cli.file(
      'sessions.ndjson',
      [
        { sessionId: S(1), audienceId: AUDIENCE, status: 'COMPLETE', startTime: '2024-11-21T12:23:52.614Z', finishTime: '2024-11-21T12:40:00.000Z' },
        { sessionId: S(2), audienceId: null, status: 'IN_PROGRESS', startTime: '2024-11-21T13:23:52.614+01:00' },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n',
    );
    const result = await cli.run(['sessions', 'import', '--test', TEST_ID, file]);
    expect(result).toMatchObject({ code: 0, stdout: `imported ${file} into test ${TEST_ID}: 2 inserted, 0 updated, 0 unchanged\n`, stderr: '' });
    expect(await storedSessions(TEST_ID)).toEqual([
      // Equal startTimes: ordered by sessionId descending.
      { sessionId: S(2), testId: TEST_ID, audienceId: null, status: 'IN_PROGRESS', startTime: Date.UTC(2024, 10, 21, 12, 23, 52, 614), finishTime: null },
      {
        sessionId: S(1),
        testId: TEST_ID,
        audienceId: AUDIENCE,
        status: 'COMPLETE',
        startTime: Date.UTC(2024, 10, 21, 12, 23, 52, 614),
        finishTime: Date.UTC(2024, 10, 21, 12, 40),
      },
    ]);
  });

  it('imports CSV with quoted fields and CRLF line ends (--json)', async () => {
    const file = cli.file(
      'more.csv',
      [HEADER, `"${S(3)}","","COMPLETE","2024-11-22T08:00:00Z","2024-11-22T08:05:00Z"`, `${S(4)},${AUDIENCE},ABANDONED,2024-11-22T09:00:00.5Z,`, ''].join('\r\n'),
    );
    expect(await cli.json<ImportJson>(['sessions', 'import', '--test', TEST_ID, file])).toEqual({
      testId: TEST_ID,
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    const stored = await storedSessions(TEST_ID);
    expect(stored.slice(0, 2)).toEqual([
      { sessionId: S(4), testId: TEST_ID, audienceId: AUDIENCE, status: 'ABANDONED', startTime: Date.UTC(2024, 10, 22, 9, 0, 0, 500), finishTime: null },
      { sessionId: S(3), testId: TEST_ID, audienceId: null, status: 'COMPLETE', startTime: Date.UTC(2024, 10, 22, 8), finishTime: Date.UTC(2024, 10, 22, 8, 5) },
    ]);
    expect(await sessionCount()).toBe(4);
  });

  it('re-importing the same file changes nothing', async () => {
    const before = await storedSessions(TEST_ID);
    const result = await cli.run(['sessions', 'import', '--test', TEST_ID, `${cli.dir}/more.csv`]);
    expect(result.stdout).toBe(`imported ${cli.dir}/more.csv into test ${TEST_ID}: 0 inserted, 0 updated, 2 unchanged\n`);
    expect(await storedSessions(TEST_ID)).toEqual(before);
    expect(await sessionCount()).toBe(4);
  });

  it('updates sessions whose values changed (upsert by sessionId)', async () => {
    const file = cli.file('update.ndjson', JSON.stringify({ sessionId: S(2), status: 'COMPLETE', startTime: '2024-11-21T12:23:52.614Z', finishTime: '2024-11-21T12:50:00Z' }));
    expect(await cli.json<ImportJson>(['sessions', 'import', '--test', TEST_ID, file])).toMatchObject({ inserted: 0, updated: 1, unchanged: 0 });
    const s2 = (await storedSessions(TEST_ID)).find((s) => s.sessionId === S(2));
    expect(s2).toMatchObject({ status: 'COMPLETE', finishTime: Date.UTC(2024, 10, 21, 12, 50) });
    expect(await sessionCount()).toBe(4);
  });

  it('reports every bad line by number and imports nothing, not even the good lines', async () => {
    const file = cli.file(
      'bad.csv',
      [
        HEADER,
        `${S(10)},,COMPLETE,2024-11-23T10:00:00Z,`, // good
        `not-a-uuid,,COMPLETE,2024-11-23T10:00:00Z,`,
        `${S(11)},,"COMPLETE,DONE",2024-11-23T10:00:00Z,`, // a quoted comma is one field
        `${S(12)},,COMPLETE,2024-11-23 10:00,`,
        `${S(13)},,COMPLETE,2024-11-23T10:00:00Z,2024-11-23T09:00:00Z`,
        `${S(14)},,COMPLETE`,
        `${S(10)},,COMPLETE,2024-11-23T10:00:00Z,`,
        `${S(15)},,COMPLETE,2024-11-23T10:00:00Z,`, // good
      ].join('\n'),
    );
    const before = await storedSessions(TEST_ID);
    const result = await cli.run(['sessions', 'import', '--test', TEST_ID, file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'line 3: sessionId must be a UUID (got "not-a-uuid")',
        `line 4: status must be 1-32 uppercase letters, digits or '_', starting with a letter, e.g. COMPLETE (got "COMPLETE,DONE")`,
        'line 5: startTime must be an ISO 8601 time with a timezone, e.g. 2024-11-21T12:23:52.614Z (got "2024-11-23 10:00")',
        'line 6: finishTime is before startTime',
        'line 7: expected 5 fields (sessionId,audienceId,status,startTime,finishTime), found 3',
        `line 8: sessionId ${S(10)} also appears on line 2`,
        `error: ${file}: 6 bad lines; nothing was imported`,
        '',
      ].join('\n'),
    );
    expect(await storedSessions(TEST_ID)).toEqual(before);
    expect(await sessionCount()).toBe(4);
  });

  it('caps the report at 100 bad lines and counts the rest', async () => {
    const lines = Array.from({ length: 130 }, (_, i) => JSON.stringify({ sessionId: `bad-${i}`, status: 'COMPLETE', startTime: '2024-11-23T10:00:00Z' }));
    const file = cli.file('many-bad.jsonl', lines.join('\n'));
    const result = await cli.run(['sessions', 'import', '--test', TEST_ID, file]);
    const out = result.stderr.trimEnd().split('\n');
    expect(result.code).toBe(1);
    expect(out).toHaveLength(102);
    expect(out[0]).toBe('line 1: sessionId must be a UUID (got "bad-0")');
    expect(out[99]).toBe('line 100: sessionId must be a UUID (got "bad-99")');
    expect(out[100]).toBe('... and 30 more bad lines');
    expect(out[101]).toBe(`error: ${file}: 130 bad lines; nothing was imported`);
    expect(await sessionCount()).toBe(4);
  });

  it('refuses sessions that belong to another test, importing none of the file', async () => {
    const file = cli.file(
      'foreign.ndjson',
      [
        JSON.stringify({ sessionId: S(20), status: 'COMPLETE', startTime: '2024-11-23T10:00:00Z' }),
        JSON.stringify({ sessionId: S(1), status: 'COMPLETE', startTime: '2024-11-21T12:23:52.614Z' }),
      ].join('\n'),
    );
    expect(await cli.run(['sessions', 'import', '--test', OTHER_TEST_ID, file])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: session ${S(1)} belongs to another test\n`,
    });
    expect(await storedSessions(OTHER_TEST_ID)).toEqual([]);
    expect(await sessionCount(OTHER_TEST_ID)).toBe(0);
  });

  it('refuses an unknown test, a bad test id, a missing file and an unknown format', async () => {
    const good = `${cli.dir}/more.csv`;
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await cli.run(['sessions', 'import', '--test', unknown, good])).toMatchObject({ code: 1, stderr: `error: no test with id ${unknown}\n` });
    expect(await cli.run(['sessions', 'import', '--test', 'T1', good])).toMatchObject({
      code: 2,
      stderr: 'error: --test must be a UUID such as 6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11 (got "T1")\n',
    });
    expect(await cli.run(['sessions', 'import', '--test', TEST_ID, `${cli.dir}/nope.csv`])).toMatchObject({
      code: 2,
      stderr: `error: cannot read ${cli.dir}/nope.csv: no such file\n`,
    });
    const txt = cli.file('sessions.txt', `${HEADER}\n`);
    expect(await cli.run(['sessions', 'import', '--test', TEST_ID, txt])).toMatchObject({
      code: 2,
      stderr: `error: cannot tell the format of ${txt} from its extension: use --format ndjson or --format csv\n`,
    });
    expect(await cli.run(['sessions', 'import', '--test', TEST_ID, txt, '--format', 'xml'])).toMatchObject({ code: 2 });
  });

  it('takes the format from --format over the extension', async () => {
    const file = cli.file('export.txt', JSON.stringify({ sessionId: S(30), status: 'COMPLETE', startTime: '2024-11-24T10:00:00Z' }));
    expect(await cli.json<ImportJson>(['sessions', 'import', '--test', TEST_ID, file, '--format', 'ndjson'])).toMatchObject({ inserted: 1 });
    expect(await sessionCount()).toBe(5);
  });
});
