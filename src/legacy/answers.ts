import { planTaskIds, type ScoringRow, type SessionDetails, type TaskAnswer } from '../details/session-details.js';
import type { PlanTask, TestPlan } from '../store/store.js';
import { spokenBetween, videoAt, type SessionMedia } from './answer-media.js';

/**
 * A completed session's imported answers as the Legacy (v1) family gives them, and a study's
 * Net Promoter Scores. The rules (rounding included) are written down in the schema
 * descriptions (schemas.ts) and in README's Legacy section.
 */

export interface LegacyAnswer {
  position: number;
  type: string;
  time: number;
  duration: number;
  skipped: boolean;
  responses: string[];
  /** What was said during the answer; left out when the session has no transcript. */
  transcript?: string;
  /** The session's video from the answer's start; left out when the session has no video. */
  url?: string;
}

/** A typed answer as the family's list of response strings (empty for a skipped task, a blank or an image). */
function responsesOf(task: PlanTask, answer: Record<string, unknown> | null): string[] {
  if (answer === null) return [];
  switch (task.taskType) {
    case 'multiple_choice':
      return answer.selected as string[];
    case 'rank_order':
      return answer.ranking as string[];
    case 'rating_scale':
    case 'nps':
      return [String(answer.value)];
    case 'launch_url':
    case 'figma':
      return [answer.success ? 'success' : 'failure'];
    case 'written_response':
    case 'verbal_response':
      return [answer.text as string];
    case 'matrix': {
      // In the task's row order, whatever order the import gave them in.
      const chosen = answer.rows as Record<string, string>;
      return (task.rows ?? []).filter((row) => chosen[row] !== undefined).map((row) => `${row}: ${chosen[row]}`);
    }
    default:
      return [];
  }
}

/** Each plan task's index by its id, worked out once per plan (plans are kept by the access cache). */
const indexOfTask = new WeakMap<TestPlan, Map<string, number>>();

/** One answer per task the session answered (skipped ones included), in plan order, with its media when the session has them. */
export function legacyAnswers(plan: TestPlan | null, details: SessionDetails | null, media?: SessionMedia): LegacyAnswer[] {
  if (!plan || !details) return [];
  let index = indexOfTask.get(plan);
  if (!index) indexOfTask.set(plan, (index = new Map(planTaskIds(plan).map((id, i) => [id, i]))));
  const byPosition: (TaskAnswer | undefined)[] = new Array<TaskAnswer | undefined>(plan.tasks.length);
  for (const a of details.tasks) {
    const i = index.get(a.taskId);
    if (i !== undefined) byPosition[i] = a;
  }
  const answers: LegacyAnswer[] = [];
  byPosition.forEach((a, i) => {
    if (!a) return;
    const task = plan.tasks[i]!;
    answers.push({
      position: i + 1,
      type: task.taskType,
      // The second the answer began in (a player seeks to it), and its length to the nearest second.
      time: Math.floor(a.startTimeMs / 1000),
      duration: Math.round((a.endTimeMs - a.startTimeMs) / 1000),
      skipped: a.skipped,
      responses: responsesOf(task, a.answer),
      ...(media?.cues ? { transcript: spokenBetween(media.cues, a.startTimeMs, a.endTimeMs) } : {}),
      ...(media?.videoUrl ? { url: videoAt(media.videoUrl, a.startTimeMs) } : {}),
    });
  });
  return answers;
}

export interface NetPromoterScore {
  position: number;
  respondents: number;
  score: number;
  promoterPercentage: number;
  passivePercentage: number;
  detractorPercentage: number;
}

/**
 * The Net Promoter Score of each NPS task of the plan, in plan order, over the answers of the
 * test's completed sessions (their scoring rows: skipped answers do not count). Promoters
 * answered 9-10, passives 7-8, detractors 0-6. Each percentage is rounded to the nearest whole
 * number (halves up), and the score is the rounded promoter percentage minus the rounded
 * detractor percentage, so the three numbers of an entry always agree (the percentages may add
 * up to 99 or 101). A task nobody answered has no score and is left out.
 */
export function netPromoterScores(plan: TestPlan | null, sessions: readonly (readonly ScoringRow[])[]): NetPromoterScore[] {
  if (!plan) return [];
  const ids = planTaskIds(plan);
  const tallies = new Map<string, { promoters: number; passives: number; detractors: number }>();
  plan.tasks.forEach((task, i) => {
    if (task.taskType === 'nps') tallies.set(ids[i]!, { promoters: 0, passives: 0, detractors: 0 });
  });
  if (tallies.size === 0) return [];
  for (const rows of sessions) {
    for (const [taskId, skipped, value] of rows) {
      const tally = tallies.get(taskId);
      if (!tally || skipped === 1 || value === null) continue;
      if (value >= 9) tally.promoters++;
      else if (value >= 7) tally.passives++;
      else tally.detractors++;
    }
  }
  return plan.tasks.flatMap((task, i) => {
    const tally = tallies.get(ids[i]!);
    if (!tally) return [];
    const respondents = tally.promoters + tally.passives + tally.detractors;
    if (respondents === 0) return [];
    const percent = (n: number) => Math.round((100 * n) / respondents);
    const promoterPercentage = percent(tally.promoters);
    const detractorPercentage = percent(tally.detractors);
    return [
      {
        position: i + 1,
        respondents,
        score: promoterPercentage - detractorPercentage,
        promoterPercentage,
        passivePercentage: percent(tally.passives),
        detractorPercentage,
      },
    ];
  });
}
