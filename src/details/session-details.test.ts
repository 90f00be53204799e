import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DETAILS_PLAN, detailsInput, OTHER_ANSWERS, PARTICIPANT_A, taskId } from '../../test/helpers/details.js';
import { openSqliteStore } from '../../test/helpers/stores.js';
import { ManualClock } from '../clock.js';
import { BadSessionFileError } from '../imports/check-session-file.js';
import { importSessionFile } from '../imports/import-session-file.js';
import { parseSessionFile } from '../imports/parse-session-file.js';
import { checkSessionDetails } from './session-details.js';

const problemsOf = (details: unknown, plan = DETAILS_PLAN): string[] => {
  const checked = checkSessionDetails(details, plan);
  return 'problems' in checked ? checked.problems : [];
};
const task = (fields: Record<string, unknown>) => ({ tasks: [{ startTimeMs: 0, endTimeMs: 10, skipped: false, ...fields }] });

describe('checkSessionDetails: field by field against the plan', () => {
  it('takes every task type answered in its shape, by position or by task id', () => {
    expect(problemsOf(detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS }))).toEqual([]);
    expect(problemsOf(task({ taskId: taskId(3).toUpperCase(), answer: { value: 5 } }))).toEqual([]);
  });

  it.each([
    ['a task the plan does not have (position)', task({ position: 17, answer: null }), 'details.tasks[0].position: the test\'s plan has no task at position 17 (it has 16)'],
    ['a task the plan does not have (id)', task({ taskId: '00000000-0000-4000-8000-000000000000', answer: null }), 'details.tasks[0].taskId: the test\'s plan has no task "00000000-0000-4000-8000-000000000000"'],
    ['a task group the plan does not have', { taskGroups: [{ taskGroupId: 'nope', sequence: 'AB' }] }, 'details.taskGroups[0].taskGroupId: the test\'s plan has no task group "nope"'],
    ['a QX group response (computed, never imported)', { taskGroups: [{ taskGroupId: 'qx-1', sequence: 'AB' }] }, 'details.taskGroups[0]: task group "qx-1" (QX_SCORE) takes no imported response (its score is computed from the answers to its tasks)'],
    ['a rating outside the scale', task({ position: 3, answer: { value: 6 } }), 'details.tasks[0].answer.value must be a whole number from 1 to 5 (got 6) (a rating_scale task\'s answer is {"value": a point of the scale})'],
    ['an NPS above 10', task({ position: 7, answer: { value: 11 } }), 'details.tasks[0].answer.value must be a whole number from 0 to 10 (got 11) (a nps task\'s answer is {"value": 0-10})'],
    ['a choice the task does not offer', task({ position: 10, answer: { selected: ['Voice'] } }), 'details.tasks[0].answer.selected[0] is not one of the task\'s choices (got "Voice") (a multiple_choice task\'s answer is {"selected": [choices]})'],
    ['a ranking missing a choice', task({ position: 12, answer: { ranking: ['Mint'] } }), 'details.tasks[0].answer.ranking must list each of the task\'s 3 choices once, best first (a rank_order task\'s answer is {"ranking": [every choice, in order]})'],
    ['a navigational answer without success', task({ position: 1, answer: {} }), 'details.tasks[0].answer.success must be true or false: whether the participant completed the task (got undefined) (a launch_url task\'s answer is {"success": true|false})'],
    ['a matrix row the task does not have', task({ position: 15, answer: { rows: { Checkout: 'Good' } } }), 'details.tasks[0].answer.rows names a row the task does not have ("Checkout") (a matrix task\'s answer is {"rows": {"<row>": "<choice>"}})'],
    ['an answer to a skipped task', task({ position: 13, skipped: true, answer: { text: 'x' } }), 'details.tasks[0].answer must be null for a skipped task'],
    ['no answer to an answered task', task({ position: 13, answer: null }), 'details.tasks[0].answer is missing (a written_response task\'s answer is {"text": "..."}; null only when skipped)'],
    ['an end before the start', task({ position: 9, startTimeMs: 10, endTimeMs: 5, answer: {} }), 'details.tasks[0].endTimeMs is before startTimeMs'],
    ['an unknown field', { participant: { participantId: null, age: 3 } }, 'details.participant.age is not a field (expected participantId, name, demographics)'],
    ['a form factor too long', { formFactorUsed: 'x'.repeat(51) }, `details.formFactorUsed must be text of at most 50 characters or null (got "${'x'.repeat(36)}...)`],
    ['notes that are not text', { notes: 7 }, 'details.notes must be text of at most 5000 characters or null (got 7)'],
    ['a participant name too long', { participant: { name: 'n'.repeat(201) } }, `details.participant.name must be text of at most 200 characters or null (got "${'n'.repeat(36)}...)`],
    ['a screener answer without its question', { screenerResponses: [{ response: ['Yes'] }] }, 'details.screenerResponses[0].question is required: the question as the participant read it'],
    ['a screener response that is not a list', { screenerResponses: [{ question: 'Country?', response: 'Poland' }] }, 'details.screenerResponses[0].response must be an array of at most 100 answers, each text of at most 1000 characters'],
    ['too many screener questions', { screenerResponses: Array.from({ length: 101 }, () => ({ question: 'q', response: [] })) }, 'details.screenerResponses must be an array of at most 100 objects with question, response'],
    ['an unknown screener field', { screenerResponses: [{ question: 'q', response: [], score: 1 }] }, 'details.screenerResponses[0].score is not a field (expected question, response)'],
    ['a demographic type outside the enum', { participant: { demographics: [{ type: 'FREE' }] } }, 'details.participant.demographics[0].type must be one of DEMOGRAPHIC_QUESTION_TYPE_SINGLE, DEMOGRAPHIC_QUESTION_TYPE_MULTIPLE, UNRECOGNIZED or null (got "FREE")'],
  ])('%s', (_name, details, problem) => {
    expect(problemsOf(details)).toContain(problem);
  });

  it('a task answered twice', () => {
    const twice = { tasks: [1, 1].map((position) => ({ position, startTimeMs: 0, endTimeMs: 1, skipped: true, answer: null })) };
    expect(problemsOf(twice)).toEqual(['details.tasks[1]: task 1 of the plan is answered twice']);
  });

  it('an object of thousands of unknown fields, or hundreds of bad demographics, gets a bounded list of problems', () => {
    const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, 1]));
    expect(problemsOf({ participant: { participantId: null, ...fields } })).toEqual([
      'details.participant.f0, details.participant.f1, details.participant.f2 and 4997 more are not fields (expected participantId, name, demographics)',
    ]);
    const demographics = Array.from({ length: 500 }, () => ({ id: 7, code: 7, label: 7, value: 7, type: 7, extra: 1 }));
    const problems = problemsOf({ participant: { demographics } });
    expect(problems).toHaveLength(21);
    expect(problems.at(-1)).toBe(`and ${500 * 6 - 20} more problems`);
  });

  it('answers for a test without a plan are refused; what the session was like needs no plan', () => {
    expect(checkSessionDetails({ tasks: [] }, null)).toEqual({
      problems: ['details give answers but the test has no plan to check them against (set one with `tests plan set`)'],
    });
    const facts = {
      participant: { name: 'ada@example.com', demographics: [{ id: 'q1', code: 'AGE', label: 'Age?', value: '34', type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' }] },
      formFactorUsed: 'Computer',
      taskOrderingCondition: 'default',
      notes: 'Hesitated at checkout.',
      screenerResponses: [{ question: 'What country do you live in?', response: ['Poland'] }],
    };
    expect(checkSessionDetails(facts, null)).toEqual({
      details: {
        ...facts,
        participant: { participantId: null, ...facts.participant },
        taskGroups: [],
        tasks: [],
      },
    });
  });
});

const dir = mkdtempSync(join(tmpdir(), 'results-api-details-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const WORKSPACE = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const by = { actor: 'cli:test' };
const id = (n: number) => `5e551000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const line = (n: number, details?: unknown) =>
  JSON.stringify({ sessionId: id(n), status: 'COMPLETE', startTime: new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString(), details });

describe('sessions import with details', () => {
  it('bad details are reported by line and nothing is imported; the good file then imports, idempotently', async () => {
    const store = await openSqliteStore(join(dir, 'store.db'), new ManualClock(Date.UTC(2026, 0, 1)));
    try {
      await store.database.migrate();
      await store.directory.createWorkspace({ id: WORKSPACE, name: 'Lab' }, by);
      await store.directory.createTest({ id: TEST_ID, workspaceId: WORKSPACE, title: 'T', productType: 'NON_THINK_OUT_LOUD', plan: DETAILS_PLAN }, by);
      const good = detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS });
      const bad = join(dir, 'bad.ndjson');
      writeFileSync(bad, [line(1, good), line(2, task({ position: 99, answer: null })), line(3, good), line(4, { tasks: 'x' })].join('\n'));
      const options = { limit: 100, fileBytes: 10_000, batchSize: 1, plan: DETAILS_PLAN };
      const error = await importSessionFile(store.sessions, TEST_ID, bad, 'ndjson', by, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadSessionFileError);
      expect((error as BadSessionFileError).report.firstBadLines).toEqual([
        { line: 2, message: "details.tasks[0].position: the test's plan has no task at position 99 (it has 16)" },
        { line: 4, message: 'details.tasks must be an array of at most 500 objects' },
      ]);
      expect(await store.sessions.findSession(id(1))).toBeNull();
      expect(await store.sessionDetails.findDetails(id(1))).toBeNull();

      const fine = join(dir, 'good.ndjson');
      writeFileSync(fine, [line(1, good), line(3, good)].join('\n'));
      expect(await importSessionFile(store.sessions, TEST_ID, fine, 'ndjson', by, options)).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
      expect(await importSessionFile(store.sessions, TEST_ID, fine, 'ndjson', by, options)).toEqual({ inserted: 0, updated: 0, unchanged: 2 });
      const stored = (await store.sessionDetails.findDetails(id(3))) as { tasks: unknown[] };
      expect(stored.tasks).toHaveLength(16);
      expect(await store.sessionDetails.listCompletedScoring(TEST_ID)).toHaveLength(2);
    } finally {
      await store.database.close();
    }
  });

  it('CSV carries the details as a JSON text column', () => {
    const details = JSON.stringify(detailsInput({ 13: { text: 'Fine, "mostly"' } })).replace(/"/g, '""');
    const csv = `sessionId,status,startTime,details\r\n${id(1)},COMPLETE,2024-01-01T00:00:00Z,"${details}"\r\n${id(2)},COMPLETE,2024-01-01T00:00:00Z,{nope\r\n`;
    const parsed = parseSessionFile(csv, 'csv', DETAILS_PLAN);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.errors.map((e) => e.line)).toEqual([3]);
    expect(!parsed.ok && parsed.errors[0]!.message).toMatch(/^details is not valid JSON/);
    const one = parseSessionFile(csv.split('\r\n').slice(0, 2).join('\r\n'), 'csv', DETAILS_PLAN);
    expect(one.ok && (one.sessions[0]!.details!.document as { tasks: { answer: unknown }[] }).tasks[0]!.answer).toEqual({ text: 'Fine, "mostly"' });
  });
});
