import { expect } from 'vitest';
import { derivedTaskId, planUuid, taskGroupUuid } from '../../src/store/plan-ids.js';
import type { Store } from '../../src/store/open-store.js';
import type { TestPlan } from '../../src/store/store.js';

/**
 * Migration 12 on either engine: a database of version 11 holding a plan with readable ids
 * (as plan files gave them before) and details answering one of its groups.
 */
export const OLD_TEST_ID = '2a1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const OLD_SESSION_ID = '3a1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const OWN_TASK_ID = '4a1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

export const OLD_PLAN: TestPlan = {
  id: 'checkout-plan',
  shortTest: false,
  taskGroups: [
    { id: 'main', type: 'MAIN' },
    { id: 'compare', type: 'BALANCED_COMPARISON' },
  ],
  tasks: [
    { text: 'Open the shop.', taskType: 'blank', taskGroupId: 'main' },
    { id: OWN_TASK_ID, text: 'Look at both pages.', taskType: 'image', taskGroupId: 'compare' },
    { text: 'How easy was it?', taskType: 'rating_scale' },
  ],
};

const oldDetails = {
  participant: null,
  taskGroups: [{ taskGroupId: 'compare', sequence: 'BA' }],
  tasks: [{ taskId: derivedTaskId('checkout-plan', 1), startTimeMs: 0, endTimeMs: 1000, skipped: false, answer: null }],
};

/** The version-11 rows, as `INSERT` values each engine's raw client writes. */
export const OLD_ROWS = {
  workspace: { id: '1a1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', name: 'W', createdAt: 0 },
  test: { id: OLD_TEST_ID, plan: JSON.stringify(OLD_PLAN) },
  details: { sessionId: OLD_SESSION_ID, testId: OLD_TEST_ID, scoring: '[]', details: JSON.stringify(oldDetails) },
};

/** What the migration must leave: UUIDs everywhere, every task keeping the id its answers name. */
export async function expectPlanIdsMigrated(store: Store): Promise<void> {
  const planId = planUuid(OLD_TEST_ID, 'checkout-plan');
  const main = taskGroupUuid(planId, 'main');
  const compare = taskGroupUuid(planId, 'compare');
  expect((await store.directory.getTest(OLD_TEST_ID))?.plan).toEqual({
    id: planId,
    shortTest: false,
    taskGroups: [
      { id: main, type: 'MAIN' },
      { id: compare, type: 'BALANCED_COMPARISON' },
    ],
    tasks: [
      { id: derivedTaskId('checkout-plan', 1), text: 'Open the shop.', taskType: 'blank', taskGroupId: main },
      { id: OWN_TASK_ID, text: 'Look at both pages.', taskType: 'image', taskGroupId: compare },
      { id: derivedTaskId('checkout-plan', 3), text: 'How easy was it?', taskType: 'rating_scale' },
    ],
  });
  expect(await store.sessionDetails.findDetails(OLD_SESSION_ID)).toEqual({ ...oldDetails, taskGroups: [{ taskGroupId: compare, sequence: 'BA' }] });
}
