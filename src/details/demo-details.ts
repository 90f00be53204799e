import type { PlanTask, SessionInput, TaskGroup } from '../store/store.js';
import { checkSessionDetails, storedDetails } from './session-details.js';

/**
 * What `demo` adds to its test plan and sessions for the details and QXscore endpoints: a
 * QX_SCORE task group (two navigational tasks and the eight attitudinal questions), a
 * balanced comparison, and a task of every other type; and for every session that got past
 * the screener, a participant with demographics and answers of every task type (some skipped).
 */
export const DEMO_DETAIL_GROUPS: TaskGroup[] = [
  { id: 'demo-qx', type: 'QX_SCORE' },
  { id: 'demo-compare', type: 'BALANCED_COMPARISON' },
];

const rating = (text: string, qxMeasure: PlanTask['qxMeasure']): PlanTask => ({
  text,
  taskType: 'rating_scale',
  taskGroupId: 'demo-qx',
  qxMeasure,
  scaleMinimum: 1,
  scaleMaximum: 5,
  lowerEndpoint: 'Strongly disagree',
  upperEndpoint: 'Strongly agree',
});

export const DEMO_DETAIL_TASKS: PlanTask[] = [
  { text: 'Find the returns policy, starting from the home page.', taskType: 'launch_url', taskGroupId: 'demo-qx', qxMeasure: 'task_success', launchUrl: 'https://shop.example.com' },
  { text: 'In the prototype, change the delivery address.', taskType: 'figma', taskGroupId: 'demo-qx', qxMeasure: 'task_success' },
  rating('The website is easy to use.', 'usability'),
  rating('It is easy to navigate within the website.', 'usability'),
  rating('The information on the website is credible.', 'trust'),
  rating('The information on the website is trustworthy.', 'trust'),
  rating('The website is attractive.', 'appearance'),
  rating('The website has a clean and simple presentation.', 'appearance'),
  { text: 'How likely are you to recommend the website to a friend?', taskType: 'nps', taskGroupId: 'demo-qx', qxMeasure: 'loyalty' },
  rating('I will likely return to the website in the future.', 'loyalty'),
  { text: 'Look at the two product pages.', taskType: 'image', taskGroupId: 'demo-compare' },
  { text: 'Rank these delivery options.', taskType: 'rank_order', taskGroupId: 'demo-main', choices: ['Next day', 'Standard', 'Pick-up point'] },
  { text: 'What would make checking out easier?', taskType: 'written_response', taskGroupId: 'demo-main' },
  { text: 'Tell us what you expected to see after paying.', taskType: 'verbal_response', taskGroupId: 'demo-main' },
  { text: 'Rate each step.', taskType: 'matrix', taskGroupId: 'demo-main', rows: ['Cart', 'Delivery', 'Payment'], choices: ['Hard', 'OK', 'Easy'] },
  { text: 'How likely are you to shop here again?', taskType: 'nps', taskGroupId: 'demo-main' },
];

const GENDERS = ['Female', 'Male', 'Non-binary'];
const AGES = ['18-24', '25-34', '35-44', '45-54'];
const SEQUENCES = ['AB', 'BA'];
const WRITTEN = ['A clearer delivery date.', 'Fewer form fields.', 'Saving my card.'];

/** The answer the `i`-th demo participant gives to a plan task, or 'skip'. */
function answerOf(task: PlanTask, i: number, position: number): Record<string, unknown> | null | 'skip' {
  const k = (i * 7 + position * 3) % 11;
  if (k === 10 && task.taskType !== 'blank') return 'skip';
  switch (task.taskType) {
    case 'launch_url':
    case 'figma':
      return { success: k % 4 !== 0 };
    case 'rating_scale':
      return { value: 1 + ((i + position) % 5 === 0 ? 1 : 2 + (k % 3)) };
    case 'nps':
      return { value: Math.min(10, 4 + k) };
    case 'multiple_choice':
      return { selected: task.multipleAnswers ? (task.choices ?? []).filter((_, c) => (i + c) % 2 === 0) : [task.choices![k % task.choices!.length]!] };
    case 'rank_order':
      return { ranking: [...(task.choices ?? [])].sort((a, b) => ((a.length * i) % 5) - ((b.length * i) % 5) || a.localeCompare(b)) };
    case 'written_response':
    case 'verbal_response':
      return { text: WRITTEN[k % WRITTEN.length]! };
    case 'matrix':
      return { rows: Object.fromEntries((task.rows ?? []).map((row, r) => [row, task.choices![(i + r) % task.choices!.length]!])) };
    default:
      return {};
  }
}

/** Demo sessions with details: every one but the screened-out, answered against `tasks`. */
export function withDemoDetails(sessions: SessionInput[], plan: { id: string; tasks: PlanTask[]; taskGroups: TaskGroup[]; shortTest: boolean }): SessionInput[] {
  return sessions.map((s, i) => {
    if (s.status === 'SCREENED_OUT') return s;
    // An unfinished session has answered the first tasks only.
    const reached = s.status === 'COMPLETE' ? plan.tasks.length : 3 + (i % 5);
    const raw = {
      participant: {
        participantId: s.sessionId.replace(/^.{8}/, 'da7a0000'),
        demographics: [
          { id: 'demo-gender', code: 'GENDER', label: 'What is your gender?', value: GENDERS[i % GENDERS.length], type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' },
          { id: 'demo-age', code: 'AGE_GROUP', label: 'How old are you?', value: AGES[i % AGES.length], type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' },
        ],
      },
      taskGroups: s.status === 'COMPLETE' ? [{ taskGroupId: 'demo-compare', sequence: SEQUENCES[i % 2] }] : [],
      tasks: plan.tasks.slice(0, reached).map((task, p) => {
        const answer = answerOf(task, i, p + 1);
        return { position: p + 1, startTimeMs: p * 45_000 + (i % 7) * 1000, endTimeMs: (p + 1) * 45_000, skipped: answer === 'skip', answer: answer === 'skip' ? null : answer };
      }),
    };
    const checked = checkSessionDetails(raw, plan);
    // The demo's own data: a problem here is a bug in this file, not bad input.
    if (!('details' in checked)) throw new Error(`demo details of session ${i}: ${checked.problems.join('; ')}`);
    return { ...s, details: storedDetails(checked.details) };
  });
}
