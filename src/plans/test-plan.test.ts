import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../imports/json-depth.js';
import { BadPlanError, parseTestPlan } from './test-plan.js';

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
    parseTestPlan(input);
  } catch (error) {
    if (error instanceof BadPlanError) return error.problems;
    throw error;
  }
  return [];
};

describe('parseTestPlan', () => {
  it('keeps a good plan as given, with defaults for what is left out', () => {
    expect(parseTestPlan(good)).toEqual({ ...good, shortTest: false });
    const generated = parseTestPlan({ tasks: [] });
    expect(generated.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.taskGroups).toEqual([]);
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
