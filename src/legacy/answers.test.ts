import { describe, expect, it } from 'vitest';
import type { ScoringRow, SessionDetails } from '../details/session-details.js';
import type { TestPlan } from '../store/store.js';
import { legacyAnswers, netPromoterScores } from './answers.js';

const task = (n: number) => `7a5c0000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const plan: TestPlan = {
  id: 'plan-nps',
  shortTest: false,
  taskGroups: [],
  tasks: [
    { id: task(1), text: 'Recommend us?', taskType: 'nps' },
    { id: task(2), text: 'Rate each page.', taskType: 'matrix', rows: ['Home', 'Cart', 'Help'], choices: ['Bad', 'Good'] },
    { id: task(3), text: 'Recommend the app?', taskType: 'nps' },
    { id: task(4), text: 'Recommend the shop?', taskType: 'nps' },
    { id: task(5), text: 'Find the shoes.', taskType: 'launch_url' },
  ],
};

/** One session's scoring rows: an NPS value per task, 'skip' for a skipped one. */
const session = (answers: Record<number, number | 'skip'>): ScoringRow[] =>
  Object.entries(answers).map(([n, v]) => [task(Number(n)), v === 'skip' ? 1 : 0, v === 'skip' ? null : v]);

describe('netPromoterScores', () => {
  it("the document's example by hand: 28 promoters, 13 passives, 9 detractors of 50 give 56/26/18 and 38", () => {
    const values = [...Array<number>(28).fill(10), ...Array<number>(13).fill(7), ...Array<number>(9).fill(4)];
    expect(netPromoterScores(plan, values.map((v) => session({ 1: v })))).toEqual([
      { position: 1, respondents: 50, score: 38, promoterPercentage: 56, passivePercentage: 26, detractorPercentage: 18 },
    ]);
  });

  it('boundaries 9/7/6 and 0/10, skips not counted, halves rounded up, score from the rounded percentages', () => {
    // Task 1: 10, 9, 9 promoters; 8, 7 passives; 6, 0, 5 detractors; one skip. 3/8 = 37.5% -> 38, 2/8 = 25%.
    // Task 3: 10, 7, 3: a third each -> 33, 33, 33 (adding up to 99), score 0.
    // Task 4: only skipped: no result. A launch_url's success (value 1) is not an NPS answer.
    const sessions = [
      session({ 1: 10, 3: 10, 4: 'skip', 5: 1 }),
      session({ 1: 9, 3: 7 }),
      session({ 1: 9, 3: 3, 5: 0 }),
      session({ 1: 8 }),
      session({ 1: 7, 4: 'skip' }),
      session({ 1: 6 }),
      session({ 1: 0 }),
      session({ 1: 5 }),
      session({ 1: 'skip' }),
    ];
    expect(netPromoterScores(plan, sessions)).toEqual([
      { position: 1, respondents: 8, score: 0, promoterPercentage: 38, passivePercentage: 25, detractorPercentage: 38 },
      { position: 3, respondents: 3, score: 0, promoterPercentage: 33, passivePercentage: 33, detractorPercentage: 33 },
    ]);
  });

  it('2 promoters of 3 and 1 detractor: 67 - 33 = 34 (not the rounded 33.3)', () => {
    expect(netPromoterScores(plan, [session({ 1: 9 }), session({ 1: 10 }), session({ 1: 6 })])[0]).toMatchObject({
      score: 34,
      promoterPercentage: 67,
      passivePercentage: 0,
      detractorPercentage: 33,
    });
  });

  it('none without a plan, without NPS tasks, or without answers', () => {
    expect(netPromoterScores(null, [session({ 1: 10 })])).toEqual([]);
    expect(netPromoterScores({ ...plan, tasks: [plan.tasks[4]!] }, [session({ 5: 1 })])).toEqual([]);
    expect(netPromoterScores(plan, [])).toEqual([]);
  });
});

describe('legacyAnswers', () => {
  const details = (tasks: SessionDetails['tasks']): SessionDetails => ({ participant: null, taskGroups: [], tasks });

  it('in plan order whatever the import order; times in seconds; a matrix by row order; skips kept, empty', () => {
    const answers = legacyAnswers(
      plan,
      details([
        { taskId: task(5), startTimeMs: 61_999, endTimeMs: 65_500, skipped: false, answer: { success: false } },
        { taskId: task(2), startTimeMs: 30_000, endTimeMs: 31_499, skipped: false, answer: { rows: { Help: 'Bad', Home: 'Good' } } },
        { taskId: task(1), startTimeMs: 0, endTimeMs: 9_500, skipped: false, answer: { value: 8 } },
        { taskId: task(3), startTimeMs: 40_000, endTimeMs: 41_000, skipped: true, answer: null },
      ]),
    );
    expect(answers).toEqual([
      { position: 1, type: 'nps', time: 0, duration: 10, skipped: false, responses: ['8'] },
      { position: 2, type: 'matrix', time: 30, duration: 1, skipped: false, responses: ['Home: Good', 'Help: Bad'] },
      { position: 3, type: 'nps', time: 40, duration: 1, skipped: true, responses: [] },
      { position: 5, type: 'launch_url', time: 61, duration: 4, skipped: false, responses: ['failure'] },
    ]);
  });

  it('none without details or without a plan', () => {
    expect(legacyAnswers(plan, null)).toEqual([]);
    expect(legacyAnswers(null, details([{ taskId: task(1), startTimeMs: 0, endTimeMs: 1, skipped: false, answer: { value: 1 } }]))).toEqual([]);
  });
});
