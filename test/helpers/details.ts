import { taskGroupUuid } from '../../src/store/plan-ids.js';
import type { PlanTask, TestPlan } from '../../src/store/store.js';

/**
 * A test plan with a task of every type, a QX_SCORE group with navigational tasks and the
 * eight attitudinal questions, a QX_SCORE group without navigational tasks, and a balanced
 * comparison; and details of three participants whose QXscores docs/QXSCORE.md works out by hand.
 */
export const PLAN_ID = '6ba7b810-9dad-41d1-80b4-00c04fd430c8';
/** The UUID of the plan's task group that the plan file names `readable` (qx-1, compare, main, qx-2). */
export const groupId = (readable: string): string => taskGroupUuid(PLAN_ID, readable);
export const taskId = (position: number) => `7a5c0000-0000-4000-8000-${position.toString(16).padStart(12, '0')}`;

const tasks: PlanTask[] = [
  { text: 'Find a pair of running shoes.', taskType: 'launch_url', taskGroupId: groupId('qx-1'), qxMeasure: 'task_success', launchUrl: 'https://shop.example.com' },
  { text: 'Check out in the prototype.', taskType: 'figma', taskGroupId: groupId('qx-1'), qxMeasure: 'task_success' },
  { text: 'The website is easy to use.', taskType: 'rating_scale', taskGroupId: groupId('qx-1'), qxMeasure: 'usability', scaleMinimum: 1, scaleMaximum: 5 },
  { text: 'It is easy to navigate within the website.', taskType: 'rating_scale', taskGroupId: groupId('qx-1'), qxMeasure: 'usability', scaleMinimum: 1, scaleMaximum: 5 },
  { text: 'The information on the website is credible.', taskType: 'rating_scale', taskGroupId: groupId('qx-1'), qxMeasure: 'trust', scaleMinimum: 1, scaleMaximum: 5 },
  { text: 'The website is attractive.', taskType: 'rating_scale', taskGroupId: groupId('qx-1'), qxMeasure: 'appearance', scaleMinimum: 1, scaleMaximum: 5 },
  { text: 'How likely are you to recommend the website?', taskType: 'nps', taskGroupId: groupId('qx-1'), qxMeasure: 'loyalty' },
  { text: 'I will likely visit the website again.', taskType: 'rating_scale', taskGroupId: groupId('qx-1'), qxMeasure: 'loyalty', scaleMinimum: 1, scaleMaximum: 5 },
  { text: 'Take a look around.', taskType: 'blank', taskGroupId: groupId('main') },
  { text: 'Which did you use?', taskType: 'multiple_choice', taskGroupId: groupId('main'), choices: ['Search', 'Menu', 'Links'], multipleAnswers: true },
  { text: 'Look at this picture.', taskType: 'image', taskGroupId: groupId('main') },
  { text: 'Rank the flavours.', taskType: 'rank_order', taskGroupId: groupId('main'), choices: ['Chocolate', 'Vanilla', 'Mint'] },
  { text: 'What did you think?', taskType: 'written_response', taskGroupId: groupId('main') },
  { text: 'Say what you expected.', taskType: 'verbal_response', taskGroupId: groupId('main') },
  { text: 'Rate each page.', taskType: 'matrix', taskGroupId: groupId('main'), rows: ['Home', 'Cart'], choices: ['Bad', 'Fine', 'Good'] },
  { text: 'The second site is easy to use.', taskType: 'rating_scale', taskGroupId: groupId('qx-2'), qxMeasure: 'usability', scaleMinimum: 1, scaleMaximum: 5 },
];

export const DETAILS_PLAN: TestPlan = {
  id: PLAN_ID,
  shortTest: false,
  taskGroups: [
    { id: groupId('qx-1'), type: 'QX_SCORE' },
    { id: groupId('compare'), type: 'BALANCED_COMPARISON' },
    { id: groupId('main'), type: 'MAIN' },
    { id: groupId('qx-2'), type: 'QX_SCORE' },
  ],
  tasks: tasks.map((t, i) => ({ id: taskId(i + 1), ...t })),
};

/** The demographic question's id: a UUID, as the real service's are. */
export const GENDER_QUESTION_ID = '3f1b8c2e-9a44-4c3d-b8b7-1a7f4c0a9d21';

type Answer = Record<string, unknown> | null | 'skip';

/** A record's details: answers by plan position (1-based), 'skip' for a skipped task. */
export function detailsInput(answers: Record<number, Answer>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    participant: { participantId: '41f72104-5f84-44fa-a16a-03f575159611', demographics: [{ id: GENDER_QUESTION_ID, code: 'GENDER', label: 'What is your gender?', value: 'Female', type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' }] },
    tasks: Object.entries(answers).map(([position, answer]) => ({
      position: Number(position),
      startTimeMs: Number(position) * 10_000,
      endTimeMs: Number(position) * 10_000 + 5000,
      skipped: answer === 'skip',
      answer: answer === 'skip' ? null : answer,
    })),
    ...extra,
  };
}

const ok = (success: boolean) => ({ success });
const value = (v: number) => ({ value: v });

/** Three participants' answers to the QX tasks (positions 1-8 and 16); see docs/QXSCORE.md. */
export const PARTICIPANT_A = { 1: ok(true), 2: ok(true), 3: value(5), 4: value(4), 5: value(5), 6: value(3), 7: value(9), 8: value(2), 16: value(5) };
export const PARTICIPANT_B = { 1: ok(false), 2: 'skip', 3: value(3), 4: 'skip', 5: value(4), 6: value(5), 7: value(6), 8: value(4), 16: value(1) } as const;
export const PARTICIPANT_C = { 1: ok(true), 2: ok(false), 3: value(2), 4: value(5), 5: value(1), 6: value(2), 7: value(10), 8: value(5), 16: 'skip' } as const;

/** Answers to every other task type (positions 9-15). */
export const OTHER_ANSWERS = {
  9: {},
  10: { selected: ['Search', 'Links'] },
  11: null,
  12: { ranking: ['Mint', 'Chocolate', 'Vanilla'] },
  13: { text: 'Clear enough.' },
  14: { text: 'I expected a cart icon.' },
  15: { rows: { Home: 'Good', Cart: 'Fine' } },
};
