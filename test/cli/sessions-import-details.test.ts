import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAILS_PLAN, detailsInput, OTHER_ANSWERS, PARTICIPANT_A } from '../helpers/details.js';
import { openStoreAt } from '../helpers/stores.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const WS_ID = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const PLAIN_TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a22';
const S = (n: number) => `0b0c4a3e-1111-4c1a-9a55-${String(n).padStart(12, '0')}`;
const record = (n: number, details?: unknown) =>
  JSON.stringify({ sessionId: S(n), status: 'COMPLETE', startTime: '2024-11-21T12:23:52.614Z', ...(details === undefined ? {} : { details }) });

describe('results-api sessions import: details', () => {
  let cli: CliSandbox;
  const storedDetails = async (sessionId: string) => {
    const store = await openStoreAt(cli.databaseUrl);
    try {
      return [await store.sessions.findSession(sessionId), await store.sessionDetails.findDetails(sessionId)];
    } finally {
      await store.database.close();
    }
  };

  beforeAll(async () => {
    cli = cliSandbox();
    await cli.json(['workspaces', 'create', '--name', 'Lab', '--id', WS_ID]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--id', TEST_ID, '--plan', cli.file('plan.json', JSON.stringify(DETAILS_PLAN))]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'Plain', '--id', PLAIN_TEST_ID]);
  });
  afterAll(() => cli.cleanup());

  it('bad details: every bad line reported, exit 1, nothing imported', async () => {
    const file = cli.file(
      'bad.ndjson',
      [
        record(1, detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS })),
        record(2, { tasks: [{ position: 3, startTimeMs: 0, endTimeMs: 1, skipped: false, answer: { value: 7 } }] }),
        record(3, { taskGroups: [{ taskGroupId: 'elsewhere', sequence: 'AB' }] }),
      ].join('\n'),
    );
    const result = await cli.run(['sessions', 'import', '--test', TEST_ID, file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}: 2 bad lines; nothing was imported`);
    expect(result.stderr).toContain('line 2: details.tasks[0].answer.value must be a whole number from 1 to 5 (got 7)');
    expect(result.stderr).toContain('line 3: details.taskGroups[0].taskGroupId: the test\'s plan has no task group "elsewhere"');
    expect(await storedDetails(S(1))).toEqual([null, null]);
  });

  it('good details are imported with their sessions, and re-importing changes nothing', async () => {
    const file = cli.file('good.ndjson', [record(1, detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS })), record(2)].join('\n'));
    expect(await cli.json(['sessions', 'import', '--test', TEST_ID, file])).toEqual({ testId: TEST_ID, inserted: 2, updated: 0, unchanged: 0 });
    expect(await cli.json(['sessions', 'import', '--test', TEST_ID, file])).toEqual({ testId: TEST_ID, inserted: 0, updated: 0, unchanged: 2 });
    const [session, details] = await storedDetails(S(1));
    expect(session).toMatchObject({ sessionId: S(1), status: 'COMPLETE' });
    expect((details as { tasks: unknown[] }).tasks).toHaveLength(16);
    expect((await storedDetails(S(2)))[1]).toBeNull();
  });

  it('details for a test without a plan are refused by line', async () => {
    const file = cli.file('plain.ndjson', record(9, { tasks: [] }));
    const result = await cli.run(['sessions', 'import', '--test', PLAIN_TEST_ID, file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 1: details give answers but the test has no plan to check them against');
  });

  it('a 10 KB line whose details nest 5,000 levels is a bad line like any other: reported by number, exit 1, nothing imported', async () => {
    const deep = record(22).replace(/}$/, `,"details":{"participant":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
    const file = cli.file('deep.ndjson', [record(21), deep, record(23)].join('\n'));
    const result = await cli.run(['sessions', 'import', '--test', TEST_ID, file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}: 1 bad line; nothing was imported`);
    expect(result.stderr).toContain('line 2: the line nests arrays and objects more than 32 levels deep');
    expect(result.stderr).not.toContain('call stack');
    expect(await storedDetails(S(21))).toEqual([null, null]);
  });
});
