import { describe, expect, it } from 'vitest';
import { DETAILS_PLAN, detailsInput, groupId, OTHER_ANSWERS, PARTICIPANT_A, PARTICIPANT_B, PARTICIPANT_C } from '../../test/helpers/details.js';
import { computeQxScores, sessionQxScore } from './qx-score.js';
import { checkSessionDetails, scoringOf, type SessionDetails } from './session-details.js';

const details = (answers: Parameters<typeof detailsInput>[0]): SessionDetails => {
  const checked = checkSessionDetails(detailsInput({ ...answers, ...OTHER_ANSWERS }), DETAILS_PLAN);
  if (!('details' in checked)) throw new Error(checked.problems.join('\n'));
  return checked.details;
};
const [a, b, c] = [details(PARTICIPANT_A), details(PARTICIPANT_B), details(PARTICIPANT_C)];

// Every number below is worked out by hand in docs/QXSCORE.md.
describe('computeQxScores', () => {
  it('the worked example: three participants, one skipping a navigational task and a question', () => {
    const [first] = computeQxScores(DETAILS_PLAN, [a, b, c].map(scoringOf));
    expect(first).toEqual({
      taskGroupId: groupId('qx-1'),
      label: 'QXscore 1',
      qxScore: 54.2,
      components: { behavioral: 50, attitudinal: 58.3 },
      values: { behavioral: [66.7, 33.3], usability: 66.7, trust: 66.7, appearance: 33.3, loyalty: 66.7 },
    });
  });

  it('a QX group without navigational tasks: behavioral and the score are null, attitudinal from what was answered', () => {
    const second = computeQxScores(DETAILS_PLAN, [a, b, c].map(scoringOf))[1];
    expect(second).toEqual({
      taskGroupId: groupId('qx-2'),
      label: 'QXscore 2',
      qxScore: null,
      components: { behavioral: null, attitudinal: 50 },
      values: { behavioral: null, usability: 50, trust: 0, appearance: 0, loyalty: 0 },
    });
  });

  it('no completed session: nothing to score', () => {
    expect(computeQxScores(DETAILS_PLAN, [])[0]).toMatchObject({ qxScore: null, components: { behavioral: 0, attitudinal: 0 } });
  });

  it('a skipped navigational task counts as a failure; a skipped question is left out', () => {
    const allSkipped = details({ 1: 'skip', 2: 'skip', 3: 'skip', 4: value(5), 5: value(5), 6: value(5), 7: value(10), 8: value(5) });
    const [first] = computeQxScores(DETAILS_PLAN, [scoringOf(allSkipped)]);
    expect(first!.values.behavioral).toEqual([0, 0]);
    expect(first!.values.usability).toBe(100);
    expect(first!.qxScore).toBe(50);
  });

  it('a plan without QX groups, or no plan, scores nothing', () => {
    expect(computeQxScores(null, [scoringOf(a)])).toEqual([]);
    expect(computeQxScores({ ...DETAILS_PLAN, taskGroups: [] }, [scoringOf(a)])).toEqual([]);
  });
});

describe('sessionQxScore (the QX_SCORE group response of one session)', () => {
  it('each participant of the worked example', () => {
    expect([a, b, c].map((d) => sessionQxScore(DETAILS_PLAN, groupId('qx-1'), d))).toEqual([81.3, 31.3, 43.8]);
  });
  it('null for a group without navigational tasks, and without details', () => {
    expect(sessionQxScore(DETAILS_PLAN, groupId('qx-2'), a)).toBeNull();
    expect(sessionQxScore(DETAILS_PLAN, groupId('qx-1'), null)).toBeNull();
  });
});

function value(v: number) {
  return { value: v };
}
