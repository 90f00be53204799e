import type { Session, Test } from '../store/store.js';
import { sessionQxScore } from './qx-score.js';
import type { SessionResultsBody, SessionResultsV2Response, SessionResultsV3Response } from './schemas.js';
import { planTaskIds, type SessionDetails } from './session-details.js';

/** The real enum's name of each plan task type (verbal and written responses are both WRITTEN). */
const V3_TASK_TYPE: Record<string, { type: string; answerKey: string }> = {
  blank: { type: 'BLANK', answerKey: 'blank' },
  rating_scale: { type: 'RATING_SCALE', answerKey: 'ratingScale' },
  multiple_choice: { type: 'MULTIPLE_CHOICE', answerKey: 'multipleChoice' },
  image: { type: 'IMAGE', answerKey: 'image' },
  nps: { type: 'NPS', answerKey: 'nps' },
  launch_url: { type: 'URL', answerKey: 'url' },
  rank_order: { type: 'RANK_ORDER', answerKey: 'rankOrder' },
  written_response: { type: 'WRITTEN', answerKey: 'written' },
  verbal_response: { type: 'WRITTEN', answerKey: 'written' },
  figma: { type: 'FIGMA', answerKey: 'figma' },
  matrix: { type: 'MATRIX', answerKey: 'matrix' },
};

/** The help centre's names on GET /api/v2/sessionResults/{sessionId}: a spoken response is VERBAL (a skipped task SKIPPED). */
const V2_TASK_TYPE: Record<string, { type: string; answerKey: string }> = { ...V3_TASK_TYPE, verbal_response: { type: 'VERBAL', answerKey: 'verbal' } };

/** Which document's names a details body uses: the real v3 document's, or the help centre's (v2). */
export type DetailsVocabulary = 'v3' | 'v2';

const KNOWN_GROUP_TYPES = new Set(['QX_SCORE', 'BALANCED_COMPARISON']);

/**
 * A session as GET /api/v3/sessionResults/{sessionId} gives it (or, in the help centre's v2
 * vocabulary, GET /api/v2/sessionResults/{sessionId}): every task group and task of the test's
 * plan, each with this session's response (null where it has none).
 */
export function sessionResultsView(session: Session, test: Test, details: SessionDetails | null, vocabulary: 'v3'): SessionResultsV3Response;
export function sessionResultsView(session: Session, test: Test, details: SessionDetails | null, vocabulary: 'v2'): SessionResultsV2Response;
export function sessionResultsView(session: Session, test: Test, details: SessionDetails | null, vocabulary: DetailsVocabulary): SessionResultsBody;
export function sessionResultsView(session: Session, test: Test, details: SessionDetails | null, vocabulary: DetailsVocabulary): SessionResultsBody {
  const types = vocabulary === 'v2' ? V2_TASK_TYPE : V3_TASK_TYPE;
  const plan = test.plan;
  const ids = plan ? planTaskIds(plan) : [];
  const answers = new Map((details?.tasks ?? []).map((a) => [a.taskId, a]));
  const sequences = new Map((details?.taskGroups ?? []).map((g) => [g.taskGroupId, g.sequence]));
  return {
    sessionId: session.sessionId,
    audienceId: session.audienceId,
    testPlanId: plan?.id ?? null,
    sessionParticipant: details?.participant
      ? { participantId: details.participant.participantId, demographicsInfo: details.participant.demographics, name: details.participant.name ?? null }
      : null,
    taskGroups: (plan?.taskGroups ?? []).map((g) => {
      const type = KNOWN_GROUP_TYPES.has(g.type) ? (g.type as 'QX_SCORE' | 'BALANCED_COMPARISON') : 'UNRECOGNIZED';
      let response: { score: number } | { sequence: string } | null = null;
      if (type === 'QX_SCORE') {
        const score = sessionQxScore(plan!, g.id, details);
        response = score === null ? null : { score };
      } else if (type === 'BALANCED_COMPARISON') {
        const sequence = sequences.get(g.id);
        response = sequence === undefined ? null : { sequence };
      }
      return { uuid: g.id, type, response };
    }),
    tasks: (plan?.tasks ?? []).map((task, i) => {
      const kind = types[task.taskType];
      const answer = answers.get(ids[i]!);
      const type = vocabulary === 'v2' && answer?.skipped ? 'SKIPPED' : (kind?.type ?? 'UNRECOGNIZED');
      return {
        uuid: ids[i]!,
        text: task.text,
        type: type as SessionResultsV2Response['tasks'][number]['type'],
        response: answer
          ? {
              startTimeMs: answer.startTimeMs,
              endTimeMs: answer.endTimeMs,
              skipped: answer.skipped,
              answer: answer.answer === null || !kind ? null : { [kind.answerKey]: answer.answer },
            }
          : null,
      };
    }),
    formFactorUsed: details?.formFactorUsed ?? null,
    taskOrderingCondition: details?.taskOrderingCondition ?? null,
    notes: details?.notes ?? null,
    screenerResponses: details?.screenerResponses ?? [],
  };
}
