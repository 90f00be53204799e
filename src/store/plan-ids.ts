import { createHash } from 'node:crypto';
import type { TestPlan } from './store.js';
import { isUuid, uuidKey, uuidV5 } from './uuid.js';

/**
 * The real documents type test plan and task group ids as UUIDs, so those are what the API
 * sends. A plan file may still name its plan and groups readably ("checkout", "qx-1"): each
 * readable id stands for a name-based UUID (RFC 9562 §5.5) in this namespace, derived from
 * the test and the readable id, so the same file gives the same UUIDs every time, and two
 * tests given one file get ids of their own. A UUID is kept as it is (lower-cased).
 */
export const PLAN_ID_NAMESPACE = '32bf5cde-cff7-4100-b94e-1067f4c207ee';

/** The UUID a plan's id stands for in test `testId`: `uuid5(PLAN_ID_NAMESPACE, "test/<testId>/plan/<id>")`. */
export const planUuid = (testId: string, id: string): string =>
  isUuid(id) ? uuidKey(id) : uuidV5(PLAN_ID_NAMESPACE, `test/${uuidKey(testId)}/plan/${id}`);

/** The UUID a task group's id stands for in plan `planId` (a UUID): `uuid5(PLAN_ID_NAMESPACE, "plan/<planId>/task-group/<id>")`. */
export const taskGroupUuid = (planId: string, id: string): string =>
  isUuid(id) ? uuidKey(id) : uuidV5(PLAN_ID_NAMESPACE, `plan/${uuidKey(planId)}/task-group/${id}`);

/**
 * The id of a plan's task that has none of its own, from the plan's id and its position: a
 * name-based UUID (version 5 layout over SHA-1 of the name alone), stable while the plan is.
 */
export function derivedTaskId(planId: string, position: number): string {
  const hex = createHash('sha1').update(`${planId}:task:${position}`).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Migration 12: a plan stored before plan and task group ids were UUIDs, with the ids they
 * stand for (as parseTestPlan gives them now); undefined when it has nothing to change. Tasks
 * without an id of their own keep the one they had (derived from the old plan id), so the
 * answers stored against them still find them.
 */
export function planWithUuids(testId: string, plan: TestPlan): TestPlan | undefined {
  const planId = planUuid(testId, plan.id);
  const groupId = (id: string) => taskGroupUuid(planId, id);
  const changed =
    planId !== plan.id || plan.taskGroups.some((g) => groupId(g.id) !== g.id) || plan.tasks.some((t) => t.taskGroupId !== undefined && groupId(t.taskGroupId) !== t.taskGroupId);
  if (!changed) return undefined;
  return {
    ...plan,
    id: planId,
    taskGroups: plan.taskGroups.map((g) => ({ ...g, id: groupId(g.id) })),
    tasks: plan.tasks.map((task, i) => ({
      ...task,
      id: task.id ?? derivedTaskId(plan.id, i + 1),
      ...(task.taskGroupId === undefined ? {} : { taskGroupId: groupId(task.taskGroupId) }),
    })),
  };
}

/**
 * Migration 12: a stored details document (JSON) whose task group answers name the groups of
 * `plan` (as stored before the migration) by the UUIDs they stand for now; undefined when none changes.
 */
export function detailsWithGroupUuids(testId: string, plan: TestPlan, details: string): string | undefined {
  const document = JSON.parse(details) as { taskGroups?: { taskGroupId: string }[] };
  const planId = planUuid(testId, plan.id);
  let changed = false;
  for (const answer of document.taskGroups ?? []) {
    const id = taskGroupUuid(planId, answer.taskGroupId);
    if (id !== answer.taskGroupId) [answer.taskGroupId, changed] = [id, true];
  }
  return changed ? JSON.stringify(document) : undefined;
}
