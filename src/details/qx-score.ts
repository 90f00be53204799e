import { QX_SCORE_GROUP } from '../plans/test-plan.js';
import type { PlanTask, TestPlan } from '../store/store.js';
import { planTaskIds, scaleOf, scoringOf, type ScoringRow, type SessionDetails } from './session-details.js';

/**
 * UserTesting's QXscore, computed from the imported answers (docs/QXSCORE.md has the method
 * and a worked example). Per QX_SCORE task group of the plan:
 *
 * - behavioral: each navigational task's (qxMeasure task_success) success rate, the share of
 *   responses with `success: true` (a skipped task is a failure); their mean;
 * - attitudinal: for each of usability, trust, appearance and loyalty, the top-2-box share of
 *   its answers (the two highest scale points; 9 or 10 on an NPS task; skipped questions are
 *   left out); their mean, over the measures that have answers;
 * - the score: the mean of the two components; null without a behavioral component or without
 *   any attitudinal answer.
 *
 * Numbers are computed unrounded and given to one decimal.
 */

export const ATTITUDINAL_MEASURES = ['usability', 'trust', 'appearance', 'loyalty'] as const;
type Measure = (typeof ATTITUDINAL_MEASURES)[number];

interface QxTasks {
  /** Navigational tasks (behavioral), in plan order. */
  navigational: string[];
  /** Questions (attitudinal) by task id: their measure and what counts as top-2-box. */
  questions: Map<string, { measure: Measure; topTwo: (value: number) => boolean }>;
}

export interface QxGroupScore {
  taskGroupId: string;
  label: string;
  qxScore: number | null;
  components: { behavioral: number | null; attitudinal: number };
  values: { behavioral: number[] | null } & Record<Measure, number>;
}

/** The QX_SCORE task groups of a plan, in plan order. */
export const qxGroupsOf = (plan: TestPlan | null) => (plan?.taskGroups ?? []).filter((g) => g.type === QX_SCORE_GROUP);

function qxTasksOf(plan: TestPlan, groupId: string): QxTasks {
  const ids = planTaskIds(plan);
  const navigational: string[] = [];
  const questions: QxTasks['questions'] = new Map();
  plan.tasks.forEach((task, i) => {
    if (task.taskGroupId !== groupId || task.qxMeasure === undefined) return;
    if (task.qxMeasure === 'task_success') navigational.push(ids[i]!);
    else questions.set(ids[i]!, { measure: task.qxMeasure, topTwo: topTwoOf(task) });
  });
  return { navigational, questions };
}

function topTwoOf(task: PlanTask): (value: number) => boolean {
  if (task.taskType === 'nps') return (value) => value >= 9;
  const { max } = scaleOf(task);
  return (value) => value >= max - 1;
}

/** Counts toward a share: how many, and how many of them count. */
class Tally {
  hits = 0;
  total = 0;
  add(hit: boolean): void {
    this.total++;
    if (hit) this.hits++;
  }
  /** The share in percent; 0 when nothing was counted. */
  get percent(): number {
    return this.total === 0 ? 0 : (100 * this.hits) / this.total;
  }
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const oneDecimal = (value: number): number => Math.round(value * 10) / 10;

/** Adds one session's answers (its scoring rows) to the tallies of one group. */
function tallySession(tasks: QxTasks, answers: readonly ScoringRow[], navigational: Map<string, Tally>, measures: Map<Measure, Map<string, Tally>>): void {
  for (const [taskId, skipped, value] of answers) {
    const nav = navigational.get(taskId);
    if (nav) {
      nav.add(skipped === 0 && value === 1);
      continue;
    }
    const question = tasks.questions.get(taskId);
    if (!question || skipped === 1 || value === null) continue;
    const byTask = measures.get(question.measure)!;
    let tally = byTask.get(taskId);
    if (!tally) byTask.set(taskId, (tally = new Tally()));
    tally.add(question.topTwo(value));
  }
}

/** The score of one group from the tallies of the sessions taken into account. */
function scoreOf(tasks: QxTasks, navigational: Map<string, Tally>, measures: Map<Measure, Map<string, Tally>>) {
  const behavioralValues = tasks.navigational.length === 0 ? null : tasks.navigational.map((id) => navigational.get(id)!.percent);
  const behavioral = behavioralValues === null ? null : mean(behavioralValues);
  const values = {} as Record<Measure, number>;
  const answered: number[] = [];
  for (const measure of ATTITUDINAL_MEASURES) {
    // A measure asked by several questions: the mean of their shares.
    const shares = [...measures.get(measure)!.values()].filter((t) => t.total > 0).map((t) => t.percent);
    values[measure] = shares.length === 0 ? 0 : mean(shares);
    if (shares.length > 0) answered.push(values[measure]);
  }
  const attitudinal = answered.length === 0 ? 0 : mean(answered);
  const qxScore = behavioral === null || answered.length === 0 ? null : (behavioral + attitudinal) / 2;
  return { qxScore, behavioral, behavioralValues, attitudinal, values };
}

function emptyTallies(tasks: QxTasks) {
  const navigational = new Map(tasks.navigational.map((id) => [id, new Tally()]));
  const measures = new Map(ATTITUDINAL_MEASURES.map((m) => [m, new Map<string, Tally>()]));
  return { navigational, measures };
}

/** The QXscore of each QX_SCORE group of the plan, from the scoring rows of the test's completed sessions (scoringOf). */
export function computeQxScores(plan: TestPlan | null, sessions: readonly (readonly ScoringRow[])[]): QxGroupScore[] {
  if (!plan) return [];
  return qxGroupsOf(plan).map((group, i) => {
    const tasks = qxTasksOf(plan, group.id);
    const { navigational, measures } = emptyTallies(tasks);
    for (const session of sessions) tallySession(tasks, session, navigational, measures);
    const s = scoreOf(tasks, navigational, measures);
    return {
      taskGroupId: group.id,
      label: `QXscore ${i + 1}`,
      qxScore: s.qxScore === null ? null : oneDecimal(s.qxScore),
      components: { behavioral: s.behavioral === null ? null : oneDecimal(s.behavioral), attitudinal: oneDecimal(s.attitudinal) },
      values: {
        behavioral: s.behavioralValues === null ? null : s.behavioralValues.map(oneDecimal),
        usability: oneDecimal(s.values.usability),
        trust: oneDecimal(s.values.trust),
        appearance: oneDecimal(s.values.appearance),
        loyalty: oneDecimal(s.values.loyalty),
      },
    };
  });
}

/**
 * One participant's QXscore for a group (the QX_SCORE task group's response in the session's
 * details): the same method over that session's answers alone; null when it cannot be computed
 * (no navigational task in the group, or no attitudinal answer).
 */
export function sessionQxScore(plan: TestPlan, groupId: string, details: SessionDetails | null): number | null {
  if (!details) return null;
  const tasks = qxTasksOf(plan, groupId);
  const { navigational, measures } = emptyTallies(tasks);
  tallySession(tasks, scoringOf(details), navigational, measures);
  // Only the tasks this participant reached count toward their own behavioral component.
  const reached = tasks.navigational.filter((id) => navigational.get(id)!.total > 0);
  if (reached.length === 0) return null;
  const s = scoreOf({ ...tasks, navigational: reached }, navigational, measures);
  return s.qxScore === null ? null : oneDecimal(s.qxScore);
}
