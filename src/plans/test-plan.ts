import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { nestsTooDeep, tooDeepProblem } from '../imports/json-depth.js';
import type { TestPlan } from '../store/store.js';
import { planUuid, taskGroupUuid } from '../store/plan-ids.js';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
export const TASK_TYPES = [
  'blank', 'multiple_choice', 'rating_scale', 'launch_url', 'written_response', 'verbal_response', 'nps',
  'image', 'rank_order', 'figma', 'matrix',
] as const;

/** What a task of a QX_SCORE task group measures (see docs/QXSCORE.md). */
export const QX_MEASURES = ['task_success', 'usability', 'trust', 'appearance', 'loyalty'] as const;

/** The task types each QX measure can be asked with. */
const QX_MEASURE_TASK_TYPES: Record<(typeof QX_MEASURES)[number], readonly string[]> = {
  task_success: ['launch_url', 'figma', 'blank'],
  usability: ['rating_scale'],
  trust: ['rating_scale'],
  appearance: ['rating_scale'],
  loyalty: ['rating_scale', 'nps'],
};

/** The task group type whose tasks make up a QXscore. */
export const QX_SCORE_GROUP = 'QX_SCORE';

/** A test plan file: what `tests create --plan` and `tests plan set` read. */
const PlanFile = Type.Object(
  {
    id: Type.Optional(Text(100)),
    shortTest: Type.Optional(Type.Boolean()),
    taskGroups: Type.Optional(
      Type.Array(Type.Object({ id: Text(100), type: Text(50) }, { additionalProperties: false }), { maxItems: 100 }),
    ),
    tasks: Type.Array(
      Type.Object(
        {
          id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' })),
          text: Text(5000),
          taskType: Type.Union(TASK_TYPES.map((t) => Type.Literal(t))),
          taskGroupId: Type.Optional(Text(100)),
          grouping: Type.Optional(Text(50)),
          choices: Type.Optional(Type.Array(Text(1000), { maxItems: 100 })),
          rows: Type.Optional(Type.Array(Text(1000), { maxItems: 100 })),
          qxMeasure: Type.Optional(Type.Union(QX_MEASURES.map((m) => Type.Literal(m)))),
          multipleAnswers: Type.Optional(Type.Boolean()),
          scaleMinimum: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })),
          scaleMaximum: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })),
          lowerEndpoint: Type.Optional(Text(200)),
          upperEndpoint: Type.Optional(Text(200)),
          launchUrl: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2000 })),
          blurPII: Type.Optional(Type.Boolean()),
          resultType: Type.Optional(Type.String({ maxLength: 50 })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);
type PlanFile = Static<typeof PlanFile>;

/** A plan file with problems; each names the field (e.g. `tasks[2].taskType`) and what is wrong. */
export class BadPlanError extends Error {
  override name = 'BadPlanError';
  constructor(readonly problems: string[]) {
    super(`the test plan has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** The largest plan file read: the admin API's body limit (Fastify's default), and hundreds of times a real plan. */
export const MAX_PLAN_FILE_BYTES = 1024 * 1024;

/** The validator's findings read from one plan: enough to fix it by. */
const MAX_VALIDATION_ERRORS = 100;

/** `/tasks/2/taskType` → `tasks[2].taskType`. */
const fieldName = (pointer: string): string =>
  pointer
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '') || '(the plan)';

/**
 * Checks a parsed plan file field by field and returns the plan to store, or throws a
 * BadPlanError listing every problem found. Nothing is written by the caller unless it passes.
 * Readable plan and task group ids become the UUIDs they stand for in test `testId` (plan-ids.ts).
 */
export function parseTestPlan(input: unknown, testId: string): TestPlan {
  // Before the validator walks it; and the validator is asked for the first problems only,
  // as a plan of a million bad tasks would otherwise yield a million.
  if (nestsTooDeep(input)) throw new BadPlanError([tooDeepProblem('the plan')]);
  const errors: ValueError[] = [];
  for (const error of Value.Errors(PlanFile, input)) {
    if (errors.push(error) === MAX_VALIDATION_ERRORS) break;
  }
  // A missing field is reported as missing, not also as of the wrong type.
  const missing = new Set(errors.filter((e) => e.message === 'Expected required property').map((e) => e.path));
  const problems = errors.filter((e) => !missing.has(e.path) || e.message === 'Expected required property').map((e) => {
    const allowed = e.path.endsWith('/taskType')
      ? ` (one of ${TASK_TYPES.join(', ')})`
      : e.path.endsWith('/qxMeasure')
        ? ` (one of ${QX_MEASURES.join(', ')})`
        : '';
    const unknown = e.message.startsWith('Unexpected property')
      ? 'is not a plan field'
      : e.message === 'Expected required property'
        ? 'is required'
        : e.message.toLowerCase();
    return `${fieldName(e.path)}: ${unknown}${allowed}`;
  });
  // One problem per field: a union failing reports each branch.
  const distinct = [...new Set(problems)];
  if (distinct.length > 0) throw new BadPlanError(distinct);

  const plan = input as PlanFile;
  const planId = plan.id === undefined ? randomUUID() : planUuid(testId, plan.id);
  const groupUuid = (id: string) => taskGroupUuid(planId, id);
  const groups = (plan.taskGroups ?? []).map((g) => ({ ...g, id: groupUuid(g.id) }));
  const groupIds = new Set<string>();
  groups.forEach((g, i) => {
    if (groupIds.has(g.id)) distinct.push(`taskGroups[${i}].id: "${plan.taskGroups![i]!.id}" is used by an earlier group`);
    groupIds.add(g.id);
  });
  const groupTypes = new Map(groups.map((g) => [g.id, g.type]));
  const taskIds = new Set<string>();
  plan.tasks.forEach((task, i) => {
    const groupId = task.taskGroupId === undefined ? undefined : groupUuid(task.taskGroupId);
    if (task.id !== undefined) {
      if (taskIds.has(task.id.toLowerCase())) distinct.push(`tasks[${i}].id: "${task.id}" is used by an earlier task`);
      taskIds.add(task.id.toLowerCase());
    }
    if (task.qxMeasure !== undefined) {
      if (groupId === undefined || groupTypes.get(groupId) !== QX_SCORE_GROUP) {
        distinct.push(`tasks[${i}].qxMeasure: only a task of a ${QX_SCORE_GROUP} task group measures a QXscore`);
      } else if (!QX_MEASURE_TASK_TYPES[task.qxMeasure].includes(task.taskType)) {
        distinct.push(`tasks[${i}].qxMeasure: ${task.qxMeasure} is asked with a task of type ${QX_MEASURE_TASK_TYPES[task.qxMeasure].join(' or ')}`);
      }
    }
    if ((task.taskType === 'rank_order' || task.taskType === 'matrix') && !(task.choices && task.choices.length >= 2)) {
      distinct.push(`tasks[${i}].choices: a ${task.taskType} task needs at least 2 choices`);
    }
    if (task.taskType === 'matrix' && !(task.rows && task.rows.length >= 1)) {
      distinct.push(`tasks[${i}].rows: a matrix task needs at least 1 row`);
    }
    if (groupId !== undefined && !groupIds.has(groupId)) {
      distinct.push(`tasks[${i}].taskGroupId: no task group has id "${task.taskGroupId}"`);
    }
    if (task.scaleMinimum !== undefined && task.scaleMaximum !== undefined && task.scaleMinimum >= task.scaleMaximum) {
      distinct.push(`tasks[${i}].scaleMaximum: must be greater than scaleMinimum (${task.scaleMinimum})`);
    }
    if (task.taskType === 'multiple_choice' && !(task.choices && task.choices.length >= 2)) {
      distinct.push(`tasks[${i}].choices: a multiple_choice task needs at least 2 choices`);
    }
  });
  if (distinct.length > 0) throw new BadPlanError(distinct);
  const tasks = plan.tasks.map((task) => ({
    ...task,
    ...(task.id === undefined ? {} : { id: task.id.toLowerCase() }),
    ...(task.taskGroupId === undefined ? {} : { taskGroupId: groupUuid(task.taskGroupId) }),
  }));
  return { id: planId, shortTest: plan.shortTest ?? false, taskGroups: groups, tasks };
}
