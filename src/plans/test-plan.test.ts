import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../imports/json-depth.js';
import { planUuid, taskGroupUuid } from '../store/plan-ids.js';
import { BadPlanError, parseTestPlan } from './test-plan.js';

const TEST_ID = '0b7c6d5e-4f3a-4b2c-9d1e-0f1a2b3c4d5e';

const good = {
  id: 'plan-1',
  taskGroups: [{ id: 'main', type: 'MAIN' }],
  tasks: [
    { text: 'Where are the ACME offices?', taskType: 'multiple_choice', taskGroupId: 'main', choices: ['Poland', 'Singapore'], multipleAnswers: true },
    { text: 'How easy was it?', taskType: 'rating_scale', scaleMinimum: 1, scaleMaximum: 5, lowerEndpoint: 'Very difficult', upperEndpoint: 'Very easy' },
  ],
};

const problemsOf = (input: unknown): string[] => {
  try {
    parseTestPlan(input, TEST_ID);
  } catch (error) {
    if (error instanceof BadPlanError) return error.problems;
    throw error;
  }
  return [];
};

describe('parseTestPlan', () => {
  it('keeps a good plan as given, readable ids as the UUIDs they stand for, with defaults for what is left out', () => {
    const planId = planUuid(TEST_ID, 'plan-1');
    const main = taskGroupUuid(planId, 'main');
    expect(parseTestPlan(good, TEST_ID)).toEqual({
      ...good,
      id: planId,
      taskGroups: [{ id: main, type: 'MAIN' }],
      tasks: [{ ...good.tasks[0], taskGroupId: main }, good.tasks[1]],
      shortTest: false,
    });
    const generated = parseTestPlan({ tasks: [] }, TEST_ID);
    expect(generated.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.taskGroups).toEqual([]);
  });

  it('maps readable ids to name-based UUIDs (RFC 9562 version 5) of their test: stable, distinct per test, UUIDs kept', () => {
    const planId = planUuid(TEST_ID, 'plan-1');
    // Python: uuid.uuid5(uuid.UUID(PLAN_ID_NAMESPACE), 'test/<TEST_ID>/plan/plan-1'), then 'plan/<that>/task-group/main'.
    expect(planId).toBe('764904d0-8b68-5ea2-9273-bc91c77b1761');
    expect(taskGroupUuid(planId, 'main')).toBe('e1a6e961-d988-5344-8c10-39b2579ef57f');
    expect(parseTestPlan(good, TEST_ID)).toEqual(parseTestPlan(good, TEST_ID));
    expect(parseTestPlan(good, '1b7c6d5e-4f3a-4b2c-9d1e-0f1a2b3c4d5e').id).not.toBe(planId);
    const uuids = parseTestPlan({ ...good, id: 'ABCDEF01-2345-4678-9ABC-DEF012345678' }, TEST_ID);
    expect(uuids.id).toBe('abcdef01-2345-4678-9abc-def012345678');
    // Parsing a parsed plan changes nothing: the CLI parses a file, the admin API parses what it sends.
    const parsed = parseTestPlan(good, TEST_ID);
    expect(parseTestPlan(parsed, TEST_ID)).toEqual(parsed);
  });

  it('names every bad field, each once', () => {
    expect(
      problemsOf({
        shortTest: 'no',
        colour: 'red',
        tasks: [{ text: '', taskType: 'dance' }, { text: 'ok', taskType: 'blank', launchUrl: 'ftp://x' }],
      }),
    ).toEqual([
      'colour: is not a plan field',
      'shortTest: expected boolean',
      'tasks[0].text: expected string length greater or equal to 1',
      expect.stringMatching(/^tasks\[0\]\.taskType: .*\(one of blank, multiple_choice/),
      expect.stringMatching(/^tasks\[1\]\.launchUrl: /),
    ]);
    expect(problemsOf([])).toEqual(['(the plan): expected object']);
    expect(problemsOf({})).toEqual(['tasks: is required']);
  });

  it('refuses a plan nested deeper than MAX_JSON_DEPTH before checking it, and lists at most 100 problems of a huge one', () => {
    const deep = JSON.parse('['.repeat(5000) + ']'.repeat(5000)) as unknown;
    expect(problemsOf({ tasks: [{ text: deep, taskType: 'blank' }] })).toEqual([`the plan nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`]);
    const wide = problemsOf({ tasks: Array.from({ length: 100_000 }, () => ({})) });
    expect(wide.length).toBeGreaterThan(1);
    expect(wide.length).toBeLessThanOrEqual(100);
  });

  it('checks what spans fields: group references, scale order, choices, repeated group ids', () => {
    expect(
      problemsOf({
        taskGroups: [{ id: 'g', type: 'MAIN' }, { id: 'g', type: 'MAIN' }],
        tasks: [
          { text: 'a', taskType: 'blank', taskGroupId: 'nope' },
          { text: 'b', taskType: 'rating_scale', scaleMinimum: 5, scaleMaximum: 1 },
          { text: 'c', taskType: 'multiple_choice', choices: ['only one'] },
        ],
      }),
    ).toEqual([
      'taskGroups[1].id: "g" is used by an earlier group',
      'tasks[0].taskGroupId: no task group has id "nope"',
      'tasks[1].scaleMaximum: must be greater than scaleMinimum (5)',
      'tasks[2].choices: a multiple_choice task needs at least 2 choices',
    ]);
  });

  it('QX measures: only in a QX_SCORE group, each with its task types; task ids once; matrix and rank order need their parts', () => {
    const taskGroups = [{ id: 'qx', type: 'QX_SCORE' }, { id: 'main', type: 'MAIN' }];
    const tasks = [
      { text: 'a', taskType: 'rating_scale', taskGroupId: 'main', qxMeasure: 'trust' },
      { text: 'b', taskType: 'written_response', taskGroupId: 'qx', qxMeasure: 'usability' },
      { text: 'c', taskType: 'launch_url', taskGroupId: 'qx', qxMeasure: 'task_success', id: '7A5C0000-0000-4000-8000-000000000001' },
      { text: 'd', taskType: 'nps', taskGroupId: 'qx', qxMeasure: 'loyalty', id: '7a5c0000-0000-4000-8000-000000000001' },
      { text: 'e', taskType: 'matrix', choices: ['x', 'y'] },
      { text: 'f', taskType: 'rank_order', choices: ['x'] },
    ];
    // An unknown measure is a schema error: reported alone, before the plan's own rules.
    expect(problemsOf({ taskGroups, tasks: [...tasks, { text: 'g', taskType: 'nps', qxMeasure: 'joy' }] })).toEqual([
      expect.stringMatching(/^tasks\[6\]\.qxMeasure: .*\(one of task_success, usability, trust, appearance, loyalty\)$/),
    ]);
    expect(problemsOf({ taskGroups, tasks })).toEqual([
      'tasks[0].qxMeasure: only a task of a QX_SCORE task group measures a QXscore',
      'tasks[1].qxMeasure: usability is asked with a task of type rating_scale',
      'tasks[3].id: "7a5c0000-0000-4000-8000-000000000001" is used by an earlier task',
      'tasks[4].rows: a matrix task needs at least 1 row',
      'tasks[5].choices: a rank_order task needs at least 2 choices',
    ]);
  });
});
