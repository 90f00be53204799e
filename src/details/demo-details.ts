import type { PlanTask, SessionInput, StoredDetails, TaskGroup } from '../store/store.js';
import { checkSessionDetails, storedDetails, type SessionDetails } from './session-details.js';

/**
 * What `demo` adds to its test plan and sessions for the details and QXscore endpoints: a
 * QX_SCORE task group (two navigational tasks and the eight attitudinal questions), a
 * balanced comparison, and a task of every other type; and for every session that got past
 * the screener, a participant with a name and demographics, answers of every task type (some
 * skipped), the form factor, task ordering, screener responses and, for some, notes.
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

/** How long a demo participant spends on each task: the `p`-th answer ends at (p + 1) times this. */
const TASK_MS = 45_000;

/** When the last answer of a completed demo session ends: how long its video must be for every answer to lie inside it. */
export const demoAnswersEndMs = (plan: { tasks: PlanTask[] }): number => plan.tasks.length * TASK_MS;

/** The demographic questions' ids: UUIDs, as the real service's are. */
const DEMOGRAPHIC_QUESTION_IDS = { gender: '0d3b6c1e-2f4a-4b8e-9c1d-5e6f7a8b9c01', age: '0d3b6c1e-2f4a-4b8e-9c1d-5e6f7a8b9c02' };
const GENDERS = ['Female', 'Male', 'Non-binary'];
const AGES = ['18-24', '25-34', '35-44', '45-54'];
const SEQUENCES = ['AB', 'BA'];
const FORM_FACTORS = ['Computer', 'Smartphone', 'Tablet'];
const SCREENER = { question: 'How often do you shop online?', answers: ['Every week', 'Every month', 'A few times a year'] };
const NOTES = ['Hesitated on the delivery step.', 'Looked for a guest checkout first.', 'Could not find the returns policy at first.'];
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

/**
 * Participant `i`'s answers and demographics depend on `i` only modulo 11, 7, 5, 4, 3 and 2
 * (see answerOf and below) and the choices' counts: they repeat every so many participants,
 * so each distinct one is built and checked once per plan (a million sessions check a few
 * thousand), and only the participant's id is the session's own.
 */
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const answerPeriod = (plan: { tasks: PlanTask[] }): number =>
  plan.tasks.reduce((period, task) => {
    const n = task.choices?.length ?? 1;
    return (period * n) / gcd(period, n);
  }, 11 * 7 * 5 * 4 * 3);
const checkedByPlan = new WeakMap<object, Map<string, StoredDetails>>();

/** The checked details of participant `i` of a session of `status`, made and checked once per plan. */
function demoDetailsOf(plan: { id: string; tasks: PlanTask[]; taskGroups: TaskGroup[]; shortTest: boolean }, i: number, status: string): StoredDetails {
  let checkedDetails = checkedByPlan.get(plan);
  if (!checkedDetails) checkedByPlan.set(plan, (checkedDetails = new Map()));
  const variant = i % answerPeriod(plan);
  const key = `${variant}:${status}`;
  const known = checkedDetails.get(key);
  if (known) return known;
  // An unfinished session has answered the first tasks only.
  const reached = status === 'COMPLETE' ? plan.tasks.length : 3 + (variant % 5);
  const raw = {
    participant: {
      participantId: null,
      demographics: [
        { id: DEMOGRAPHIC_QUESTION_IDS.gender, code: 'GENDER', label: 'What is your gender?', value: GENDERS[variant % GENDERS.length], type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' },
        { id: DEMOGRAPHIC_QUESTION_IDS.age, code: 'AGE_GROUP', label: 'How old are you?', value: AGES[variant % AGES.length], type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' },
      ],
    },
    taskGroups: status === 'COMPLETE' ? [{ taskGroupId: 'demo-compare', sequence: SEQUENCES[variant % 2] }] : [],
    formFactorUsed: FORM_FACTORS[variant % FORM_FACTORS.length],
    taskOrderingCondition: SEQUENCES[variant % 2] === 'AB' ? 'default' : 'reversed comparison',
    // Some sessions have the researcher's notes; the others none, as most real ones.
    notes: variant % 5 === 0 ? NOTES[variant % NOTES.length] : null,
    screenerResponses: [{ question: SCREENER.question, response: [SCREENER.answers[variant % SCREENER.answers.length]!] }],
    tasks: plan.tasks.slice(0, reached).map((task, p) => {
      const answer = answerOf(task, variant, p + 1);
      return { position: p + 1, startTimeMs: p * TASK_MS + (variant % 7) * 1000, endTimeMs: (p + 1) * TASK_MS, skipped: answer === 'skip', answer: answer === 'skip' ? null : answer };
    }),
  };
  const checked = checkSessionDetails(raw, plan);
  // The demo's own data: a problem here is a bug in this file, not bad input.
  if (!('details' in checked)) throw new Error(`demo details of participant ${i}: ${checked.problems.join('; ')}`);
  const stored = storedDetails(checked.details);
  checkedDetails.set(key, stored);
  return stored;
}

/**
 * Demo sessions with details: every one but the screened-out, answered against `tasks`. The
 * `n`-th session (counted from `firstIndex`, for sessions made in batches) gets the `n`-th
 * participant's answers.
 */
export function withDemoDetails(
  sessions: SessionInput[],
  plan: { id: string; tasks: PlanTask[]; taskGroups: TaskGroup[]; shortTest: boolean },
  firstIndex = 0,
): SessionInput[] {
  return sessions.map((s, at) => {
    if (s.status === 'SCREENED_OUT') return s;
    const { document, scoring } = demoDetailsOf(plan, firstIndex + at, s.status);
    const details = document as SessionDetails;
    // The participant's own: their id, and a made-up username as the real v1 participant.name shows one.
    const participant = { ...details.participant!, participantId: s.sessionId.replace(/^.{8}/, 'da7a0000'), name: `participant-${s.sessionId.slice(0, 8)}` };
    return { ...s, details: { document: { ...details, participant }, scoring } };
  });
}
